/**
 * Serving certificates for the webhook server and the HTTPS metrics server, the two ways
 * `kindex manifests --webhook-certs` offers:
 * - `cert-manager`: a self-signed Issuer and a Certificate per server, cert-manager writing the
 *   Secret the Deployment mounts, and its CA injector filling the `caBundle` of the objects
 *   annotated `cert-manager.io/inject-ca-from` (kubebuilder's config/certmanager).
 * - `secret`: a CA and a serving certificate generated here, as a `kubernetes.io/tls` Secret,
 *   with the CA as `caBundle`. For development clusters: the private key ends up in the files.
 *   A Secret written before is kept while it still fits (same names, valid for 30 more days),
 *   so running the command again, or `--check`, gives the same bytes.
 *
 * @module
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import { generateWebhookCertificates, type WebhookCertificates } from '../webhook/webhook-certificates.js';

/**
 * Where `kindex manifests` gets serving certificates from (its `--webhook-certs` flag).
 *
 * @example
 * ```ts
 * import { type Operator } from '@kindex/informer';
 * import { operatorManifests, type CertificateSource } from '@kindex/informer/internal';
 * declare const operator: Operator;
 *
 * const certificates: CertificateSource = 'cert-manager';
 * const { files } = await operatorManifests(operator, { name: 'widget-operator', namespace: 'widgets', image: 'ghcr.io/acme/widget-operator:1.0.0', certificates });
 * ```
 */
export type CertificateSource = 'cert-manager' | 'secret';

/** One server's certificate: the Secret the Deployment mounts and the names it must be valid for. */
export interface ServingCertificate {
  /** The Secret, `<name>-webhook-server-cert` or `<name>-metrics-server-cert`. */
  readonly secretName: string;
  /** The cert-manager Certificate's name (used in `inject-ca-from`). */
  readonly certificateName: string;
  /** `<service>.<namespace>.svc` and its `.cluster.local` form. */
  readonly dnsNames: readonly string[];
}

/** What the certificates give the rest of the output. */
export interface CertificateObjects {
  readonly objects: readonly Record<string, unknown>[];
  /** Annotations for objects whose caBundle cert-manager fills in, by Secret name. */
  readonly injectAnnotations: (certificate: ServingCertificate) => Record<string, string>;
  /** The CA (PEM) to write as caBundle, by Secret name; undefined with cert-manager. */
  readonly caBundle: (certificate: ServingCertificate) => string | undefined;
}

const MIN_REMAINING_MS = 30 * 86_400_000;

/**
 * The objects giving each of `certificates` its Secret.
 *
 * @param previous - the Secrets written before (objects of the previous certificates.yaml), kept when they still fit.
 */
export async function certificateObjects(
  source: CertificateSource,
  namespace: string,
  issuerName: string,
  certificates: readonly ServingCertificate[],
  labels: Record<string, string>,
  previous: readonly Record<string, unknown>[] = [],
): Promise<CertificateObjects> {
  if (certificates.length === 0) return { objects: [], injectAnnotations: () => ({}), caBundle: () => undefined };
  if (source === 'cert-manager') {
    const issuer = {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Issuer',
      metadata: { name: issuerName, namespace, labels },
      spec: { selfSigned: {} },
    };
    const objects = certificates.map((c) => ({
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: c.certificateName, namespace, labels },
      spec: {
        dnsNames: [...c.dnsNames],
        issuerRef: { kind: 'Issuer', name: issuerName },
        secretName: c.secretName,
        privateKey: { rotationPolicy: 'Always' },
      },
    }));
    return {
      objects: [issuer, ...objects],
      injectAnnotations: (c) => ({ 'cert-manager.io/inject-ca-from': `${namespace}/${c.certificateName}` }),
      caBundle: () => undefined,
    };
  }
  const pairs = new Map<string, WebhookCertificates>();
  for (const c of certificates)
    pairs.set(c.secretName, reusable(previous, c) ?? (await generateWebhookCertificates({ hosts: [...c.dnsNames] })));
  return {
    objects: certificates.map((c) => {
      const pair = pairs.get(c.secretName)!;
      return {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/tls',
        metadata: { name: c.secretName, namespace, labels },
        // stringData: readable in review, and the API server encodes it.
        stringData: { 'ca.crt': pair.caCert, 'tls.crt': pair.cert, 'tls.key': pair.key },
      };
    }),
    injectAnnotations: () => ({}),
    caBundle: (c) => pairs.get(c.secretName)!.caCert,
  };
}

/** The objects of a previous certificates.yaml, or none when it is missing or not YAML. */
export function previousObjects(text: string | undefined): Record<string, unknown>[] {
  if (text === undefined) return [];
  try {
    return parseAllDocuments(text)
      .map((d) => d.toJS() as unknown)
      .filter((o): o is Record<string, unknown> => typeof o === 'object' && o !== null);
  } catch {
    return [];
  }
}

/** The pair in a previous Secret, when it is whole, valid for the same names and for 30 more days. */
function reusable(previous: readonly Record<string, unknown>[], certificate: ServingCertificate): WebhookCertificates | undefined {
  const secret = previous.find(
    (o) => o['kind'] === 'Secret' && (o['metadata'] as { name?: unknown } | undefined)?.name === certificate.secretName,
  );
  const data = secret?.['stringData'] as Record<string, unknown> | undefined;
  const caCert = data?.['ca.crt'];
  const cert = data?.['tls.crt'];
  const key = data?.['tls.key'];
  if (typeof caCert !== 'string' || typeof cert !== 'string' || typeof key !== 'string') return undefined;
  try {
    const ca = new X509Certificate(caCert);
    const serving = new X509Certificate(cert);
    const names = (serving.subjectAltName ?? '').split(', ');
    const fits =
      certificate.dnsNames.every((n) => names.includes(`DNS:${n}`)) &&
      serving.checkIssued(ca) &&
      serving.verify(ca.publicKey) &&
      serving.checkPrivateKey(createPrivateKey(key)) &&
      Date.parse(serving.validTo) - Date.now() > MIN_REMAINING_MS &&
      Date.parse(ca.validTo) - Date.now() > MIN_REMAINING_MS;
    return fits ? { caCert, cert, key } : undefined;
  } catch {
    return undefined;
  }
}
