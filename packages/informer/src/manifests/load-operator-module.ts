/**
 * Importing an operator's definition module to describe it, as `kindex manifests` and `kindex crd
 * generate` do: with the describe-only switch on (so an import that starts the operator fails
 * with one line instead of hanging), TypeScript through tsx's loader when the project has tsx,
 * and the definition built with a KubeConfig that never connects.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import type { CustomResourceDefinition } from '../crd/crd-manifest.js';
import { describeOnly } from './describe-only.js';
import type { DescribableOperator } from './operator-manifests.js';

/**
 * The module cannot be described: it does not exist, exports no definition (or several), or is
 * TypeScript without tsx to load it. The message is one line naming the module and the fix.
 *
 * @example
 * ```ts
 * import { OperatorModuleError } from '@kindex/informer';
 * declare const error: unknown; // caught around the load of an operator module
 *
 * if (error instanceof OperatorModuleError) console.error(error.message);
 * ```
 */
export class OperatorModuleError extends Error {
  override readonly name = 'OperatorModuleError';
  readonly code = 'KINDEX_OPERATOR_MODULE';
  constructor(
    /** The module as given. */
    readonly module: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * An operator definition as read from a module: `OperatorDefinition`'s shape, its operator seen
 * as a {@link DescribableOperator}.
 *
 * @example
 * ```ts
 * import { loadOperatorModule, type LoadedOperatorDefinition } from '@kindex/informer/internal';
 *
 * const { definition } = await loadOperatorModule('dist/operator.js', { command: 'my-tool' });
 * const loaded: LoadedOperatorDefinition | undefined = definition;
 * console.log(loaded?.name);
 * ```
 */
export interface LoadedOperatorDefinition {
  readonly name: string;
  readonly customResources?: readonly { readonly crd: CustomResourceDefinition }[];
  readonly gracefulShutdownTimeoutMs?: number;
  /** Builds the operator (with a KubeConfig that never connects while describing). */
  create(context: { readonly kubeConfig: KubeConfig; readonly namespace: string }): DescribableOperator | Promise<DescribableOperator>;
}

/**
 * What {@link loadOperatorModule} found.
 *
 * @example
 * ```ts
 * import { loadOperatorModule, type LoadedOperatorModule } from '@kindex/informer/internal';
 *
 * const loaded: LoadedOperatorModule = await loadOperatorModule('dist/model.js', { command: 'my-tool' });
 * console.log(loaded.customResources.map((r) => r.crd.metadata.name));
 * ```
 */
export interface LoadedOperatorModule {
  /** The definition it exports (the default export, else its one exported definition); undefined when none. */
  readonly definition: LoadedOperatorDefinition | undefined;
  /** The operator the definition created, when a namespace was asked for. */
  readonly operator: DescribableOperator | undefined;
  /** The namespace `create()` got. */
  readonly namespace: string | undefined;
  /** The custom resources: the definition's `customResources`, else every one the module exports. */
  readonly customResources: readonly { readonly crd: CustomResourceDefinition }[];
}

/**
 * Options of {@link loadOperatorModule}.
 *
 * @example
 * ```ts
 * import type { LoadOperatorModuleOptions } from '@kindex/informer/internal';
 *
 * const options: LoadOperatorModuleOptions = { command: 'kindex manifests', namespace: (name) => `${name}-system` };
 * ```
 */
export interface LoadOperatorModuleOptions {
  /** The command describing the module, named in the messages (e.g. `kindex manifests`). */
  readonly command: string;
  /** Also call the definition's `create()`, with the namespace this returns for its name. Defaults to not creating it. */
  readonly namespace?: (name: string) => string;
}

/**
 * Imports `module` (a path) without starting anything and reads its definition and custom
 * resources; see the module doc. TypeScript modules (`.ts`, `.mts`) need tsx in the project.
 *
 * @throws {OperatorModuleError} when the module is missing, exports several definitions, or is TypeScript without tsx.
 * @throws {OperatorStartRefusedError} when importing it (or creating the operator) starts the operator.
 *
 * @example
 * ```ts
 * import { loadOperatorModule } from '@kindex/informer/internal';
 *
 * const { definition, operator } = await loadOperatorModule('src/operator.ts', { command: 'my-tool', namespace: (name) => `${name}-system` });
 * const rbac = await operator?.rbacManifest({ name: definition!.name, subject: { kind: 'Group', name: 'ops' }, leases: false });
 * ```
 */
export async function loadOperatorModule(module: string, options: LoadOperatorModuleOptions): Promise<LoadedOperatorModule> {
  const path = resolve(module);
  if (!existsSync(path)) throw new OperatorModuleError(module, `${module} does not exist`);
  return describeOnly(module, options.command, async () => {
    const exports = await importModule(module, path);
    const definition = definitionOf(module, exports);
    const exported = Object.values(exports).filter(isCustomResource);
    const customResources = definition !== undefined ? [...(definition.customResources ?? [])] : exported;
    if (definition === undefined || options.namespace === undefined)
      return { definition, operator: undefined, namespace: undefined, customResources };
    const namespace = options.namespace(definition.name);
    const operator = await definition.create({ kubeConfig: describingKubeConfig(namespace), namespace });
    const described = operator as Partial<DescribableOperator> | null | undefined;
    if (typeof described?.rbacManifest !== 'function' || typeof described.options !== 'object') {
      throw new OperatorModuleError(
        module,
        `the create() of ${module}'s definition ${definition.name} returned no Operator: return the new Operator({...}) it builds`,
      );
    }
    return { definition, operator, namespace, customResources };
  });
}

/** A KubeConfig that passes every check and never reaches a server (`.invalid` never resolves). */
function describingKubeConfig(namespace: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'describe-only', server: 'https://describe-only.invalid', skipTLSVerify: false }],
    users: [{ name: 'describe-only' }],
    contexts: [{ name: 'describe-only', cluster: 'describe-only', user: 'describe-only', namespace }],
    currentContext: 'describe-only',
  });
  return kubeConfig;
}

function isDefinition(value: unknown): value is LoadedOperatorDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { name?: unknown; create?: unknown };
  return typeof v.name === 'string' && typeof v.create === 'function';
}

function isCustomResource(value: unknown): value is { crd: CustomResourceDefinition } {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { crd?: { kind?: unknown }; validate?: unknown };
  return typeof v.validate === 'function' && v.crd?.kind === 'CustomResourceDefinition';
}

function definitionOf(module: string, exports: Record<string, unknown>): LoadedOperatorDefinition | undefined {
  if (isDefinition(exports['default'])) return exports['default'];
  const named = Object.entries(exports).filter(([, v]) => isDefinition(v));
  if (named.length > 1) {
    throw new OperatorModuleError(
      module,
      `${module} exports ${named.length} operator definitions (${named.map(([k]) => k).join(', ')}): export the one to describe as default`,
    );
  }
  return named[0]?.[1] as LoadedOperatorDefinition | undefined;
}

/**
 * Imports the module; a TypeScript one that Node cannot load (no loader registered yet: the
 * launcher registers tsx when kindex finds it, a plain `node` does not) again after registering
 * tsx's loader. Probing first, rather than registering up front, keeps tsx from being registered
 * twice, which breaks module loading in CommonJS projects.
 */
async function importModule(module: string, path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    // The extension is refused before anything in the module runs, so importing again is safe.
    if (!/\.[mc]?ts$/.test(path) || (error as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
  }
  await registerTypeScript(module, path);
  // Another URL: Node keeps the failed load of the first one.
  return (await import(`${url}?describe`)) as Record<string, unknown>;
}

/** Registers tsx's ESM loader, found from kindex's own location, else from the module's project. */
async function registerTypeScript(module: string, path: string): Promise<void> {
  const candidates = ['tsx/esm/api'];
  try {
    // require() resolves the CommonJS entry; its ESM sibling is the one whose register() works from an import.
    const required = createRequire(path).resolve('tsx/esm/api');
    candidates.push(pathToFileURL(required.replace(/\.cjs$/, '.mjs')).href);
  } catch {
    // Not installed in the module's project.
  }
  for (const specifier of candidates) {
    try {
      const api = (await import(specifier)) as { register?: () => unknown };
      if (typeof api.register !== 'function') continue;
      api.register();
      return;
    } catch {
      // Try the next one.
    }
  }
  throw new OperatorModuleError(
    module,
    `${module} is TypeScript and tsx is not installed to load it: build first (tsc) and point at the JavaScript (e.g. dist/operator.js), or add tsx to the project's devDependencies`,
  );
}
