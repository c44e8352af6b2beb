/**
 * An operator's definition: its name, the custom resources it owns and how to build it, in one
 * module that starts nothing (`src/operator.ts`, `export default defineOperator({...})`). The
 * process entry point runs it (`src/main.ts`, `await runOperator(definition)`); `kindex
 * manifests` imports the same module to write everything a cluster needs (CRDs, RBAC, the
 * Deployment), as kubebuilder's `make manifests` reads its markers. Keeping the two apart is what
 * lets a tool read the operator without running it.
 *
 * @module
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import type { CustomResource } from '../crd/custom-resource.js';
import { loadKubeConfig } from '../kubeconfig/load-kube-config.js';
import { refuseStartWhileDescribing } from '../manifests/describe-only.js';
import { OPERATOR_RUN_OPTIONS, type OperatorRunOptions } from './operator-options.js';
import type { Operator } from './operator.js';

/**
 * What {@link OperatorDefinition.create} gets: where the operator runs.
 *
 * @example
 * ```ts
 * import { Operator, type OperatorDefinitionContext } from '@kindex/informer';
 *
 * // The Lease lives in the operator's own namespace, wherever it is deployed.
 * const create = ({ kubeConfig, namespace }: OperatorDefinitionContext): Operator =>
 *   new Operator({ kubeConfig, leaderElection: { leaseName: 'web-operator', leaseNamespace: namespace } });
 * ```
 */
export interface OperatorDefinitionContext {
  /** The cluster to talk to. Under `kindex manifests`, one that never connects. */
  readonly kubeConfig: KubeConfig;
  /** The operator's own namespace (its Leases, its Events): `$POD_NAMESPACE` in a pod, `--namespace` under `kindex manifests`. */
  readonly namespace: string;
}

/**
 * An operator, described without starting it: see the module doc.
 *
 * @example
 * ```ts
 * import { Operator, defineOperator, type OperatorDefinition } from '@kindex/informer';
 * import type { CustomResource } from '@kindex/informer';
 * declare const Widgets: CustomResource;
 *
 * const definition: OperatorDefinition = defineOperator({
 *   name: 'widget-operator',
 *   customResources: [Widgets],
 *   create: ({ kubeConfig }) => new Operator({ kubeConfig, server: { port: 8080 } }),
 * });
 * ```
 */
export interface OperatorDefinition {
  /**
   * A DNS-1123 label starting with a letter, at most 47 characters: it names the ServiceAccount,
   * the Deployment, the Roles and the Services (`<name>-webhook-service` must stay within 63).
   */
  readonly name: string;
  /** The custom resources the operator owns (values returned by `customResource(...)`): their CRDs ship with it. Defaults to none. */
  readonly customResources?: readonly CustomResource[];
  /**
   * How long in-flight reconciles may take to finish after SIGTERM: `runOperator`'s
   * `gracefulShutdownTimeoutMs`, and the Deployment's `terminationGracePeriodSeconds` (this
   * plus 15 s) that `kindex manifests` writes. Defaults to 30000.
   */
  readonly gracefulShutdownTimeoutMs?: number;
  /** Builds the operator (controllers registered, not started). Called once per process. */
  create(context: OperatorDefinitionContext): Operator | Promise<Operator>;
}

/** {@link OperatorDefinition}'s keys; its values are checked by `defineOperator`, whose messages say what each must be. */
const OPERATOR_DEFINITION = defineOptions<OperatorDefinition>('operator definition', {
  name: Type.Unknown(),
  customResources: Type.Optional(Type.Unknown()),
  gracefulShutdownTimeoutMs: Type.Optional(Type.Unknown()),
  create: Type.Unknown(),
});

/** The longest name whose derived names (`<name>-webhook-service`, 16 more) stay DNS-1035 labels. */
const MAX_NAME_LENGTH = 47;

/**
 * Checks an operator definition and returns it: `export default defineOperator({...})` in the
 * module `kindex manifests` reads.
 *
 * @throws {TypeError} naming the field and the fix: a name that is no DNS-1123 label (or too
 * long), a custom resource not made by `customResource()` or listed twice, a missing `create`.
 *
 * @example
 * ```ts
 * // src/operator.ts: describes the operator, starts nothing.
 * import Type from 'typebox';
 * import { Operator, customResource, defineOperator } from '@kindex/informer';
 *
 * export const Widgets = customResource({ group: 'example.com', kind: 'Widget', plural: 'widgets', versions: { v1: { spec: Type.Object({}) } } });
 *
 * export default defineOperator({
 *   name: 'widget-operator',
 *   customResources: [Widgets],
 *   create: ({ kubeConfig, namespace }) => {
 *     const operator = new Operator({ kubeConfig, server: { port: 8080 }, leaderElection: { leaseName: 'widget-operator', leaseNamespace: namespace } });
 *     // operator.register(new WidgetReconciler(), { kind: Widgets });
 *     return operator;
 *   },
 * });
 * ```
 */
export function defineOperator(definition: OperatorDefinition): OperatorDefinition {
  if (typeof definition !== 'object' || definition === null)
    throw new TypeError('defineOperator: give an object { name, customResources, create }');
  const name = definition.name;
  if (typeof name !== 'string' || !/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > MAX_NAME_LENGTH) {
    throw new TypeError(
      `operator definition: name ${JSON.stringify(name)} must be lower-case letters, digits and '-', start with a letter, end with a letter or digit, at most ${MAX_NAME_LENGTH} characters (it names the ServiceAccount, Deployment, Roles and Services), e.g. 'widget-operator'`,
    );
  }
  const where = `operator definition ${name}`;
  if (typeof definition.create !== 'function')
    throw new TypeError(`${where}: create must be a function ({ kubeConfig, namespace }) => new Operator({...})`);
  const resources = definition.customResources ?? [];
  if (!Array.isArray(resources)) throw new TypeError(`${where}: customResources must be an array of values returned by customResource()`);
  const seen = new Set<string>();
  resources.forEach((resource: unknown, i) => {
    const crd = (resource as { crd?: { kind?: unknown; metadata?: { name?: unknown } } } | null)?.crd;
    if (crd?.kind !== 'CustomResourceDefinition' || typeof (resource as { validate?: unknown }).validate !== 'function')
      throw new TypeError(`${where}: customResources[${i}] is not a custom resource; list values returned by customResource()`);
    const crdName = String(crd.metadata?.name);
    if (seen.has(crdName)) throw new TypeError(`${where}: customResources[${i}] lists ${crdName} a second time; list each once`);
    seen.add(crdName);
  });
  const drain = definition.gracefulShutdownTimeoutMs;
  if (drain !== undefined && !(Number.isInteger(drain) && drain >= 0))
    throw new TypeError(`${where}: gracefulShutdownTimeoutMs must be a whole number of milliseconds >= 0, got ${JSON.stringify(drain)}`);
  OPERATOR_DEFINITION.check(definition, where);
  return definition;
}

/**
 * Options of {@link runOperator}: where the operator runs, and {@link OperatorRunOptions}.
 *
 * @example
 * ```ts
 * import { runOperator, type OperatorDefinition, type RunOperatorOptions } from '@kindex/informer';
 * declare const definition: OperatorDefinition;
 *
 * const options: RunOperatorOptions = { namespace: 'operators', gracefulShutdownTimeoutMs: 20_000 };
 * await runOperator(definition, options);
 * ```
 */
export type RunOperatorOptions = {
  /** The cluster. Defaults to `loadKubeConfig()`: `$KUBECONFIG`, `~/.kube/config`, or the pod's ServiceAccount. */
  readonly kubeConfig?: KubeConfig;
  /** The operator's own namespace. Defaults to `$POD_NAMESPACE`, else the kubeconfig context's namespace, else `default`. */
  readonly namespace?: string;
} & OperatorRunOptions;

const RUN_OPERATOR_OPTIONS = defineOptions<RunOperatorOptions>('runOperator options', {
  kubeConfig: Type.Optional(Type.Unknown()),
  namespace: Type.Optional(Type.String({ minLength: 1, description: 'a namespace name' })),
  ...OPERATOR_RUN_OPTIONS.properties,
});

/**
 * Runs a defined operator as the process: builds it with `definition.create(...)` and calls
 * `run()` (until SIGTERM: drain, release the Lease, exit 0). The entry point of `src/main.ts`.
 * While `kindex manifests` describes the module, rejects with `OperatorStartRefusedError`
 * before it loads any kubeconfig.
 *
 * @example
 * ```ts
 * // src/main.ts: the container's entry point.
 * import { runOperator, type OperatorDefinition } from '@kindex/informer';
 * declare const definition: OperatorDefinition; // import definition from './operator.js';
 *
 * await runOperator(definition);
 * ```
 */
export async function runOperator(definition: OperatorDefinition, options: RunOperatorOptions = {}): Promise<void> {
  refuseStartWhileDescribing();
  RUN_OPERATOR_OPTIONS.check(options);
  const { kubeConfig = loadKubeConfig(), namespace, ...runOptions } = options;
  const operator = await definition.create({ kubeConfig, namespace: namespace ?? operatorNamespace(kubeConfig) });
  const drain = definition.gracefulShutdownTimeoutMs;
  await operator.run({ ...(drain !== undefined ? { gracefulShutdownTimeoutMs: drain } : {}), ...runOptions });
}

/** `$POD_NAMESPACE` (the Deployment sets it from the downward API), else the context's namespace, else `default`. */
function operatorNamespace(kubeConfig: KubeConfig): string {
  const fromPod = process.env['POD_NAMESPACE'];
  if (fromPod) return fromPod;
  return kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace || 'default';
}
