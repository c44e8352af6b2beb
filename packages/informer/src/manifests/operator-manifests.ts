/**
 * The manifests stage: everything a cluster needs to run an operator, derived from the operator
 * itself, as kubebuilder's `make manifests` and Pepr's `pepr build` give a team: the CRDs it owns,
 * its Namespace and ServiceAccount, least-privilege RBAC (what `Operator.rbacManifest()` derives,
 * the Lease Roles of leader election and sharding apart), the Deployment (restricted Pod
 * Security, probes, downward API, a grace period beyond the drain), the metrics Service, and with
 * webhooks their Service, configurations, CRD conversion and serving certificates (cert-manager or
 * a generated Secret); with an HTTPS metrics server the `<name>-metrics-reader` ClusterRole and,
 * asked for, a Prometheus Operator ServiceMonitor.
 *
 * - {@link operatorManifests}: the files, as objects and as stable YAML (sorted keys, so a
 *   definition always gives the same bytes and `kindex manifests --check` can compare them).
 * - {@link describeOnly} / {@link refuseStartWhileDescribing}: importing an operator's module to
 *   describe it without starting it (`Operator.start()` refuses meanwhile).
 * - {@link loadOperatorModule}: what the `kindex manifests` and `kindex crd generate` commands
 *   use to import a definition module (TypeScript through tsx).
 *
 * The input is a {@link DescribableOperator}, the part of an `Operator` this reads (its options
 * and its RBAC and webhook listings), so this stage does not depend on the composition root.
 *
 * @module
 */
import type { RbacManifest, RbacSubject } from '../rbac/rbac-manifest.js';
import { rbacManifest } from '../rbac/rbac-manifest.js';
import { leasePermissions, type LeaseOwners } from '../rbac/lease-permissions.js';
import { metricsReaderClusterRole } from '../rbac/metrics-permissions.js';
import type { WebhookManifest, WebhookManifestOptions } from '../webhook/webhook-manifest.js';
import type { CustomResourceDefinition } from '../crd/crd-manifest.js';
import { certificateObjects, previousObjects, type CertificateSource, type ServingCertificate } from './certificate-manifests.js';
import { certificateMount, deploymentManifest, type ContainerPort, type SecretMount } from './deployment-manifest.js';
import { GENERATED_MARK, kustomizationFile, manifestFile, type ManifestFile } from './manifest-files.js';
import { OperatorManifestsError } from './operator-manifests-error.js';

/**
 * The part of an `Operator` that {@link operatorManifests} reads: the options it was made with
 * and its RBAC and webhook listings. An `Operator` is one.
 *
 * @example
 * ```ts
 * import type { Operator } from '@kindex/informer';
 * import type { DescribableOperator } from '@kindex/informer/internal';
 * declare const operator: Operator;
 *
 * const described: DescribableOperator = operator;
 * ```
 */
export interface DescribableOperator {
  readonly options: {
    readonly server?:
      | {
          readonly port: number;
          readonly secure?: boolean | { readonly certFile?: string; readonly keyFile?: string };
          readonly healthProbePort?: number;
        }
      | undefined;
    readonly webhooks?: { readonly port: number; readonly certDir?: string } | undefined;
    readonly leaderElection?: LeaseOwners['leaderElection'];
    readonly sharding?: LeaseOwners['sharding'];
  };
  /** The operator's least-privilege Role/ClusterRole for `subject`, without the Lease rules (written apart). */
  rbacManifest(options: { readonly name: string; readonly subject: RbacSubject; readonly leases: false }): Promise<RbacManifest>;
  /** The configurations of the operator's admission and conversion webhooks, reached through a Service. */
  webhookManifest(options: WebhookManifestOptions): WebhookManifest;
}

/**
 * Options of {@link operatorManifests}; the `kindex manifests` flags.
 *
 * @example
 * ```ts
 * import type { OperatorManifestsOptions } from '@kindex/informer/internal';
 *
 * const options: OperatorManifestsOptions = { name: 'widget-operator', namespace: 'widget-operator-system', image: 'ghcr.io/acme/widget-operator:1.0.0' };
 * ```
 */
export interface OperatorManifestsOptions {
  /** The operator definition's name: the ServiceAccount, Deployment, Roles and Services are named after it. */
  readonly name: string;
  /** Where the operator runs. */
  readonly namespace: string;
  /** The container image. */
  readonly image: string;
  /** The container's arguments. Defaults to none (the image's CMD). */
  readonly args?: readonly string[];
  /** Replicas of the Deployment; more than one needs leader election or sharding. Defaults to 1. */
  readonly replicas?: number;
  /** The CRDs the operator owns (the definition's `customResources`). Defaults to none. */
  readonly customResources?: readonly { readonly crd: CustomResourceDefinition }[];
  /** The drain after SIGTERM (the definition's `gracefulShutdownTimeoutMs`). Defaults to 30000. */
  readonly gracefulShutdownTimeoutMs?: number;
  /** Where serving certificates come from; needed with webhooks or an HTTPS metrics server reading files. Defaults to none. */
  readonly certificates?: CertificateSource;
  /** Add a Prometheus Operator ServiceMonitor for the metrics Service. Defaults to false. */
  readonly serviceMonitor?: boolean;
  /** What the files' header names as their source, e.g. `src/operator.ts`. Defaults to none. */
  readonly source?: string;
  /** The text of the certificates.yaml written before: its generated Secrets are kept while they fit. Defaults to none. */
  readonly previousCertificates?: string;
}

/**
 * The output of {@link operatorManifests}.
 *
 * @example
 * ```ts
 * import type { OperatorManifests } from '@kindex/informer/internal';
 * declare const manifests: OperatorManifests;
 *
 * for (const file of manifests.files) console.log(file.name, file.objects.map((o) => o['kind']).join(', '));
 * ```
 */
export interface OperatorManifests {
  /** One file per concern, kustomization.yaml last (it lists the others). */
  readonly files: readonly ManifestFile[];
}

/** Namespaces every cluster has: an operator deployed into one gets no Namespace object. */
const CLUSTER_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease']);

/**
 * Everything a cluster needs to run `operator` (see the module doc), as files.
 *
 * @throws {OperatorManifestsError} naming the option and the fix: no `server` (nothing to probe),
 * webhooks without `certDir` or without a certificate source, replicas without leader election, a
 * conversion webhook for a CRD the definition does not own.
 *
 * @example
 * ```ts
 * import { type Operator } from '@kindex/informer';
 * import { operatorManifests } from '@kindex/informer/internal';
 * declare const operator: Operator;
 *
 * const { files } = await operatorManifests(operator, { name: 'widget-operator', namespace: 'widgets', image: 'ghcr.io/acme/widget-operator:1.0.0' });
 * ```
 */
export async function operatorManifests(operator: DescribableOperator, options: OperatorManifestsOptions): Promise<OperatorManifests> {
  const { name, namespace } = options;
  const where = `operator ${name}`;
  if (!options.image)
    throw new OperatorManifestsError(where, 'image', 'give the container image, e.g. --image ghcr.io/acme/widget-operator:1.0.0');
  const { server, webhooks, leaderElection, sharding } = operator.options;
  if (server === undefined) {
    throw new OperatorManifestsError(
      where,
      'server',
      'the Deployment probes /healthz and /readyz on it: give the Operator server: { port: 8080 }',
    );
  }
  // Port 0 (any free port) suits tests; a Deployment's probes and Services need a fixed one.
  for (const [field, port] of [
    ['server.port', server.port],
    ['server.healthProbePort', server.healthProbePort],
    ['webhooks.port', webhooks?.port],
  ] as const) {
    if (port === 0)
      throw new OperatorManifestsError(where, field, 'port 0 picks a free port at start; the Deployment needs a fixed one, e.g. 8080');
  }
  const replicas = options.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1)
    throw new OperatorManifestsError(where, 'replicas', `give a whole number >= 1, not ${replicas}`);
  if (replicas > 1 && leaderElection === undefined && sharding === undefined) {
    throw new OperatorManifestsError(
      where,
      'replicas',
      `${replicas} replicas without leaderElection or sharding would all reconcile the same objects: give the Operator leaderElection, or one replica`,
    );
  }
  const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/managed-by': 'kindex' };
  const selector = { 'app.kubernetes.io/name': name };
  const subject: RbacSubject = { kind: 'ServiceAccount', name, namespace };
  const metricsService = `${name}-metrics`;
  const webhookService = `${name}-webhook-service`;
  const svc = (service: string): string[] => [`${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];

  // Serving certificates: the webhook server's, and the metrics server's when it serves HTTPS from files.
  const secure = server.secure === undefined || server.secure === false ? undefined : server.secure === true ? {} : server.secure;
  const metricsFiles =
    secure?.certFile !== undefined && secure.keyFile !== undefined ? { cert: secure.certFile, key: secure.keyFile } : undefined;
  const webhookCert: ServingCertificate = {
    secretName: `${name}-webhook-server-cert`,
    certificateName: `${name}-serving-cert`,
    dnsNames: svc(webhookService),
  };
  const metricsCert: ServingCertificate = {
    secretName: `${name}-metrics-server-cert`,
    certificateName: `${name}-metrics-cert`,
    dnsNames: svc(metricsService),
  };
  const needed = [...(webhooks ? [webhookCert] : []), ...(metricsFiles ? [metricsCert] : [])];
  if (needed.length > 0 && options.certificates === undefined) {
    const what = webhooks ? 'serves webhooks' : 'serves metrics over HTTPS from certFile/keyFile';
    throw new OperatorManifestsError(
      where,
      'certificates',
      `it ${what}: choose where their certificate comes from with --webhook-certs cert-manager or --webhook-certs secret`,
    );
  }
  if (webhooks !== undefined && webhooks.certDir === undefined) {
    throw new OperatorManifestsError(
      where,
      'webhooks.certDir',
      "the Deployment mounts the webhook certificate's Secret there: give the Operator webhooks: { port: 9443, certDir: '/tmp/k8s-webhook-server/serving-certs' }",
    );
  }
  const certs = await certificateObjects(
    options.certificates ?? 'secret',
    namespace,
    `${name}-selfsigned-issuer`,
    needed,
    labels,
    previousObjects(options.previousCertificates),
  );

  const mounts: SecretMount[] = [];
  if (webhooks?.certDir !== undefined) mounts.push({ volume: 'webhook-certs', secretName: webhookCert.secretName, path: webhooks.certDir });
  if (metricsFiles !== undefined) {
    const mount = certificateMount('metrics-certs', metricsCert.secretName, metricsFiles.cert, metricsFiles.key);
    if (mount === undefined)
      throw new OperatorManifestsError(
        where,
        'server.secure.keyFile',
        'put certFile and keyFile in one directory: one Secret volume is mounted there',
      );
    mounts.push(mount);
  }
  const ports: ContainerPort[] = [{ name: 'metrics', port: server.port }];
  if (server.healthProbePort !== undefined) ports.push({ name: 'health', port: server.healthProbePort });
  if (webhooks !== undefined) ports.push({ name: 'webhook-server', port: webhooks.port });

  const files: ManifestFile[] = [];
  const header = `${GENERATED_MARK}${options.source ? ` from ${options.source}` : ''}; do not edit: change the operator definition and run it again.\n`;
  const add = (file: string, objects: readonly Record<string, unknown>[], extraHeader = ''): void => {
    if (objects.length > 0)
      files.push(
        manifestFile(
          file,
          objects.map((o) => withLabels(o, labels)),
          header + extraHeader,
        ),
      );
  };

  // A namespace of the cluster's own exists already and is not the operator's to label.
  if (!CLUSTER_NAMESPACES.has(namespace))
    add('namespace.yaml', [
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        // The Deployment meets the restricted Pod Security Standard: enforce it in the namespace.
        metadata: { name: namespace, labels: { ...labels, 'pod-security.kubernetes.io/enforce': 'restricted' } },
      },
    ]);
  const webhookManifest = webhooks
    ? operator.webhookManifest({
        service: { namespace, name: webhookService, port: 443 },
        name,
        ...(certs.caBundle(webhookCert) !== undefined ? { caBundle: certs.caBundle(webhookCert)! } : {}),
      })
    : undefined;
  add('crds.yaml', crdObjects(where, options.customResources ?? [], webhookManifest, certs.injectAnnotations(webhookCert)));
  add('service-account.yaml', [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } }]);
  const rbac = await operator.rbacManifest({ name, subject, leases: false });
  add('rbac.yaml', rbac.objects as unknown as Record<string, unknown>[]);
  if (leaderElection !== undefined)
    add(
      'leader-election-rbac.yaml',
      rbacManifest(leasePermissions({ leaderElection }), { name: `${name}-leader-election`, subject }).objects as unknown as Record<
        string,
        unknown
      >[],
    );
  if (sharding !== undefined)
    add(
      'sharding-rbac.yaml',
      rbacManifest(leasePermissions({ sharding }), { name: `${name}-sharding`, subject }).objects as unknown as Record<string, unknown>[],
    );
  if (secure !== undefined) {
    // Bind it to Prometheus's ServiceAccount: the metrics server asks a SubjectAccessReview for this.
    add('metrics-reader-rbac.yaml', [metricsReaderClusterRole(name) as unknown as Record<string, unknown>]);
  }
  add('deployment.yaml', [
    deploymentManifest({
      name,
      namespace,
      image: options.image,
      args: options.args ?? [],
      replicas,
      labels,
      selector,
      ports,
      // With `secure`, the probes moved to healthProbePort over HTTP (the kubelet sends no token).
      probe:
        server.healthProbePort !== undefined
          ? { port: 'health', scheme: 'HTTP' }
          : { port: 'metrics', scheme: secure !== undefined ? 'HTTPS' : 'HTTP' },
      mounts,
      drainMs: options.gracefulShutdownTimeoutMs ?? 30_000,
    }),
  ]);
  const metricsLabels = { ...labels, 'app.kubernetes.io/component': 'metrics' };
  add('metrics-service.yaml', [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: metricsService, namespace, labels: metricsLabels },
      spec: { selector, ports: [{ name: 'metrics', port: server.port, targetPort: 'metrics', protocol: 'TCP' }] },
    },
  ]);
  if (options.serviceMonitor)
    add('service-monitor.yaml', [
      serviceMonitor(name, namespace, metricsLabels, secure !== undefined, metricsFiles ? metricsCert : undefined),
    ]);
  if (webhooks !== undefined && webhookManifest !== undefined) {
    add('webhook-service.yaml', [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: webhookService, namespace },
        spec: { selector, ports: [{ name: 'webhook-server', port: 443, targetPort: 'webhook-server', protocol: 'TCP' }] },
      },
    ]);
    const inject = certs.injectAnnotations(webhookCert);
    add(
      'webhooks.yaml',
      webhookManifest.objects.map((o) => withAnnotations(o, inject)),
    );
  }
  add(
    'certificates.yaml',
    certs.objects,
    options.certificates === 'secret'
      ? '# Holds private keys: for development clusters; use --webhook-certs cert-manager in production.\n'
      : '',
  );
  files.push(kustomizationFile(files, header));
  // What other clusters must grant: beside the kustomization, never in it (`kubectl apply -k`
  // would grant cluster B's rules in the operator's own cluster).
  const elsewhere = (file: string, manifest: RbacManifest, where: string): void =>
    add(
      file,
      manifest.objects as unknown as Record<string, unknown>[],
      `# Not for this cluster: apply to ${where}, and bind the roles there to the user of its kubeconfig.\n`,
    );
  for (const [cluster, manifest] of rbac.clusters ?? []) elsewhere(`rbac-cluster-${cluster}.yaml`, manifest, `cluster ${cluster}`);
  for (const [fleet, manifest] of rbac.fleets ?? [])
    elsewhere(`rbac-fleet-${fleet}.yaml`, manifest, `every member cluster of fleet ${fleet}`);
  return { files };
}

/** The CRDs, by name, with the conversion webhook stanzas merged in. */
function crdObjects(
  where: string,
  resources: readonly { readonly crd: CustomResourceDefinition }[],
  webhooks: WebhookManifest | undefined,
  inject: Record<string, string>,
): Record<string, unknown>[] {
  const crds = resources.map(
    (r) => r.crd as unknown as Record<string, unknown> & { metadata: { name: string }; spec: Record<string, unknown> },
  );
  for (const stanza of webhooks?.conversions ?? []) {
    const crd = crds.find((c) => c.metadata.name === stanza.crd);
    if (crd === undefined) {
      throw new OperatorManifestsError(
        where,
        'customResources',
        `it converts ${stanza.crd} with a webhook but does not own it: add that custom resource to the definition's customResources`,
      );
    }
    crd.spec = { ...crd.spec, conversion: stanza.conversion };
    Object.assign(crd, withAnnotations(crd, inject));
  }
  return crds.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
}

function serviceMonitor(
  name: string,
  namespace: string,
  selector: Record<string, string>,
  secure: boolean,
  cert: ServingCertificate | undefined,
): Record<string, unknown> {
  const endpoint = secure
    ? {
        path: '/metrics',
        port: 'metrics',
        scheme: 'https',
        // The metrics server authenticates the scraper with a TokenReview of this token.
        bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
        tlsConfig: cert
          ? { serverName: cert.dnsNames[0], insecureSkipVerify: false, ca: { secret: { name: cert.secretName, key: 'ca.crt' } } }
          : // A certificate the server generated at start: nothing to verify it against.
            { insecureSkipVerify: true },
      }
    : { path: '/metrics', port: 'metrics', scheme: 'http' };
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: { name: `${name}-metrics-monitor`, namespace },
    spec: { endpoints: [endpoint], selector: { matchLabels: selector } },
  };
}

function withLabels(object: Record<string, unknown>, labels: Record<string, string>): Record<string, unknown> {
  const metadata = (object['metadata'] ?? {}) as Record<string, unknown>;
  return { ...object, metadata: { ...metadata, labels: { ...labels, ...(metadata['labels'] as Record<string, string> | undefined) } } };
}

function withAnnotations(object: Record<string, unknown>, annotations: Record<string, string>): Record<string, unknown> {
  if (Object.keys(annotations).length === 0) return object;
  const metadata = (object['metadata'] ?? {}) as Record<string, unknown>;
  return {
    ...object,
    metadata: { ...metadata, annotations: { ...(metadata['annotations'] as Record<string, string> | undefined), ...annotations } },
  };
}
