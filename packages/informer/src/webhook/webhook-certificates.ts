/**
 * Certificates of the webhook server: generated for development (a CA and a serving
 * certificate signed by it, through `@peculiar/x509` on Node's WebCrypto), or read from a
 * directory that cert-manager (or a mounted Secret) rotates.
 *
 * @module
 */
import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * A serving certificate and key, and the CA that signed it (the API server's `caBundle`), PEM.
 *
 * @example
 * ```ts
 * import { generateWebhookCertificates, type WebhookCertificates } from '@kindex/informer';
 *
 * const certificates: WebhookCertificates = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
 * const caBundle = Buffer.from(certificates.caCert).toString('base64'); // for a WebhookConfiguration
 * ```
 */
export interface WebhookCertificates {
  /** The serving certificate, PEM (`tls.crt`). */
  readonly cert: string;
  /** Its private key, PKCS#8 PEM (`tls.key`). */
  readonly key: string;
  /** The CA certificate that signed `cert`, PEM (`ca.crt`): what the API server trusts. */
  readonly caCert: string;
}

/**
 * Options of {@link generateWebhookCertificates}.
 *
 * @example
 * ```ts
 * import type { GenerateWebhookCertificatesOptions } from '@kindex/informer';
 *
 * const inCluster: GenerateWebhookCertificatesOptions = { hosts: ['web-operator.operators.svc'], validityDays: 30 };
 * ```
 */
export interface GenerateWebhookCertificatesOptions {
  /**
   * Names and IP addresses the serving certificate is valid for (its subjectAltNames; the API
   * server verifies the host it calls against them). Defaults to `127.0.0.1`, `::1` and `localhost`.
   */
  readonly hosts?: readonly string[];
  /** Defaults to 365. */
  readonly validityDays?: number;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/**
 * Generates a CA and a serving certificate it signs, for development and tests: the API server
 * is given the CA as `caBundle`. In production, mount certificates (cert-manager) instead.
 *
 * @example
 * ```ts
 * import { generateWebhookCertificates, Operator } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const certificates = await generateWebhookCertificates();
 * const operator = new Operator({ kubeConfig, webhooks: { port: 9443, host: '127.0.0.1', certificates } });
 * ```
 */
export async function generateWebhookCertificates(options: GenerateWebhookCertificatesOptions = {}): Promise<WebhookCertificates> {
  const hosts = options.hosts ?? ['127.0.0.1', '::1', 'localhost'];
  const validityDays = options.validityDays ?? 365;
  // Loaded here, not at the top: @peculiar/x509 needs the reflect-metadata polyfill, which only
  // processes that generate certificates should get.
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const subtle = webcrypto.subtle;
  const notBefore = new Date(Date.now() - 60_000); // tolerate a little clock skew
  const notAfter = new Date(notBefore.getTime() + validityDays * 86_400_000);
  const caKeys = await subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const serial = (): string =>
    Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
      .toString('hex')
      .replace(/^[89a-f]/, '1');
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=kindex webhook CA',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const keys = await subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${hosts[0] ?? 'localhost'}`,
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      // Go's TLS verification (the API server's) reads only subjectAltNames, never the CN.
      new x509.SubjectAlternativeNameExtension(
        hosts.map((h) => (isIP(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h })),
      ),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const pkcs8 = Buffer.from(await subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
  return { cert: cert.toString('pem') + '\n', key, caCert: ca.toString('pem') + '\n' };
}
