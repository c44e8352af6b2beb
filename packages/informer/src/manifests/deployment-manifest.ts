/**
 * The operator's Deployment: one container running the image, under the restricted Pod Security
 * Standard, with the downward-API variables the operator reads (`POD_NAMESPACE` for its Leases,
 * `POD_NAME` for its identity), probes on `/healthz` and `/readyz`, its ports, and the Secrets
 * of its serving certificates mounted where the operator reads them.
 *
 * @module
 */
import { basename, dirname } from 'node:path';

/** One port of the container and the probes' scheme. */
export interface ContainerPort {
  readonly name: string;
  readonly port: number;
}

/** A Secret mounted in the container: the serving certificates. */
export interface SecretMount {
  readonly volume: string;
  readonly secretName: string;
  /** The directory it is mounted at. */
  readonly path: string;
  /** Secret key to file name, when the operator reads other names than `tls.crt`/`tls.key`. */
  readonly items?: readonly { readonly key: string; readonly path: string }[];
}

/** What {@link deploymentManifest} builds the Deployment from. */
export interface DeploymentInput {
  readonly name: string;
  readonly namespace: string;
  readonly image: string;
  readonly args: readonly string[];
  readonly replicas: number;
  readonly labels: Record<string, string>;
  readonly selector: Record<string, string>;
  readonly ports: readonly ContainerPort[];
  /** The port name the kubelet probes, and over which scheme. */
  readonly probe: { readonly port: string; readonly scheme: 'HTTP' | 'HTTPS' };
  readonly mounts: readonly SecretMount[];
  /** How long the operator drains after SIGTERM, in milliseconds. */
  readonly drainMs: number;
}

/** Seconds the kubelet waits after SIGTERM beyond the operator's drain: releasing the Lease, closing watches, exiting. */
const SHUTDOWN_MARGIN_SECONDS = 15;

/** The Deployment of the operator. */
export function deploymentManifest(input: DeploymentInput): Record<string, unknown> {
  const probe = (path: string, initialDelaySeconds: number, periodSeconds: number): Record<string, unknown> => ({
    httpGet: { path, port: input.probe.port, scheme: input.probe.scheme },
    initialDelaySeconds,
    periodSeconds,
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: input.name, namespace: input.namespace, labels: input.labels },
    spec: {
      replicas: input.replicas,
      selector: { matchLabels: input.selector },
      template: {
        metadata: { labels: input.labels },
        spec: {
          serviceAccountName: input.name,
          terminationGracePeriodSeconds: Math.ceil(input.drainMs / 1000) + SHUTDOWN_MARGIN_SECONDS,
          // The restricted Pod Security Standard; the image must run as a numeric non-root USER
          // (the kubelet cannot check runAsNonRoot against a user name).
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'operator',
              image: input.image,
              imagePullPolicy: 'IfNotPresent',
              ...(input.args.length > 0 ? { args: [...input.args] } : {}),
              env: [
                { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              ],
              ports: input.ports.map((p) => ({ name: p.name, containerPort: p.port, protocol: 'TCP' })),
              livenessProbe: probe('/healthz', 15, 20),
              readinessProbe: probe('/readyz', 5, 10),
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: [
                // The root filesystem is read-only; libraries that write temporary files get /tmp.
                { name: 'tmp', mountPath: '/tmp' },
                ...input.mounts.map((m) => ({ name: m.volume, mountPath: m.path, readOnly: true })),
              ],
            },
          ],
          volumes: [
            { name: 'tmp', emptyDir: {} },
            ...input.mounts.map((m) => ({
              name: m.volume,
              secret: { secretName: m.secretName, ...(m.items ? { items: m.items.map((i) => ({ ...i })) } : {}) },
            })),
          ],
        },
      },
    },
  };
}

/**
 * Where a Secret of `tls.crt`, `tls.key` and `ca.crt` goes so the operator reads `certFile` and
 * `keyFile`: their directory, with the keys renamed when the files are named otherwise.
 * Undefined when the two files are in different directories (one Secret volume cannot serve both).
 */
export function certificateMount(volume: string, secretName: string, certFile: string, keyFile: string): SecretMount | undefined {
  if (dirname(certFile) !== dirname(keyFile)) return undefined;
  const cert = basename(certFile);
  const key = basename(keyFile);
  const renamed = cert !== 'tls.crt' || key !== 'tls.key';
  return {
    volume,
    secretName,
    path: dirname(certFile),
    ...(renamed
      ? {
          items: [
            { key: 'tls.crt', path: cert },
            { key: 'tls.key', path: key },
            { key: 'ca.crt', path: 'ca.crt' },
          ],
        }
      : {}),
  };
}
