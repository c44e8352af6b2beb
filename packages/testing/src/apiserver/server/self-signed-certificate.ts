// A self-signed TLS certificate for 127.0.0.1 and localhost, built with node:crypto alone.
// kubectl (client-go) sends bearer tokens only over TLS, so the embedded server must speak HTTPS
// for kubectl to authenticate; Node has no certificate builder, hence this small DER encoder.

import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/**
 * A PEM key pair and certificate.
 *
 * @example
 * ```ts
 * import { selfSignedCertificate, type SelfSignedCertificate } from '@kindex/testing/internal';
 * import { KubeConfig } from '@kubernetes/client-node';
 * declare const serverUrl: string;
 *
 * const certificate: SelfSignedCertificate = selfSignedCertificate('operator');
 * const kubeConfig = new KubeConfig();
 * kubeConfig.loadFromOptions({
 *   clusters: [{ name: 'test', server: serverUrl, skipTLSVerify: true }],
 *   users: [{ name: 'operator', certData: Buffer.from(certificate.cert).toString('base64'), keyData: Buffer.from(certificate.key).toString('base64') }],
 *   contexts: [{ name: 'test', cluster: 'test', user: 'operator' }],
 *   currentContext: 'test',
 * });
 * ```
 */
export interface SelfSignedCertificate {
  readonly key: string;
  readonly cert: string;
}

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
}

const seq = (...c: Buffer[]): Buffer => tlv(0x30, ...c);

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    for (let v = p >>> 7; v > 0; v >>>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(d: Date): Buffer {
  const p = (n: number): string => String(n).padStart(2, '0');
  const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return tlv(0x17, Buffer.from(s, 'ascii'));
}

function name(cn: string): Buffer {
  return seq(tlv(0x31, seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn, 'utf8')))));
}

function pem(label: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

/**
 * A DER INTEGER body for a certificate serial from random bytes. DER wants the shortest encoding:
 * a leading 0x00 followed by a byte below 0x80 is "illegal padding" to OpenSSL, and a leading byte
 * of 0x80 or more would read as negative. Forcing the first byte into 0x40..0x7f avoids both (a
 * plain `& 0x7f` left 1 certificate in 256 unparseable).
 * @internal
 */
export function certificateSerial(random: Buffer): Buffer {
  const serial = Buffer.from(random);
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  return serial;
}

/**
 * Creates an ECDSA P-256 certificate valid for ten years for 127.0.0.1, ::1 and localhost, and
 * for the DNS names in `dnsNames` (a webhook Service's `<name>.<namespace>.svc`, say).
 *
 * @example
 * ```ts
 * import { startEmbeddedApiServer } from '@kindex/testing';
 * import { selfSignedCertificate } from '@kindex/testing/internal';
 *
 * // Test client-certificate authentication: the server trusts this certificate for the user "operator".
 * const server = await startEmbeddedApiServer({ tls: true });
 * const client = selfSignedCertificate('operator');
 * server.trustClientCertificates([client.cert]);
 * ```
 */
export function selfSignedCertificate(commonName = 'kindex-embedded-apiserver', dnsNames: readonly string[] = []): SelfSignedCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const serial = certificateSerial(randomBytes(16));
  const sigAlg = seq(oid('1.2.840.10045.4.3.2'));
  const now = new Date(Date.now() - 60_000);
  const later = new Date(now.getTime() + 10 * 365 * 24 * 3600 * 1000);
  const san = seq(
    tlv(0x87, Buffer.from([127, 0, 0, 1])),
    tlv(0x87, Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
    tlv(0x82, Buffer.from('localhost', 'ascii')),
    ...dnsNames.map((dnsName) => tlv(0x82, Buffer.from(dnsName, 'ascii'))),
  );
  const extensions = tlv(
    0xa3,
    seq(
      seq(oid('2.5.29.19'), tlv(0x01, Buffer.from([0xff])), tlv(0x04, seq(tlv(0x01, Buffer.from([0xff]))))),
      seq(oid('2.5.29.15'), tlv(0x01, Buffer.from([0xff])), tlv(0x04, tlv(0x03, Buffer.from([0x05, 0xa0])))),
      seq(oid('2.5.29.37'), tlv(0x04, seq(oid('1.3.6.1.5.5.7.3.1')))),
      seq(oid('2.5.29.17'), tlv(0x04, san)),
    ),
  );
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, serial),
    sigAlg,
    name(commonName),
    seq(utcTime(now), utcTime(later)),
    name(commonName),
    spki,
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const cert = seq(tbs, sigAlg, tlv(0x03, Buffer.from([0]), signature));
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  return { key, cert: pem('CERTIFICATE', cert) };
}
