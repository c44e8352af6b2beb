import type { ApiextensionsV1Api, CustomObjectsApi, V1JSONSchemaProps } from '@kubernetes/client-node';
import { eventually } from './eventually.js';
import { uniqueName } from './unique-name.js';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';

/**
 * Coordinates of a CRD made by {@link createTestCrd}.
 *
 * @example
 * ```ts
 * import type { TestCrd } from '@kindex/testing';
 * import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 * declare const crd: TestCrd;
 *
 * const custom = kubeConfig.makeApiClient(CustomObjectsApi);
 * await custom.createNamespacedCustomObject({
 *   group: crd.group,
 *   version: crd.version,
 *   plural: crd.plural,
 *   namespace: 'default',
 *   body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'web' }, spec: { replicas: 1 } },
 * });
 * ```
 */
export interface TestCrd {
  readonly name: string;
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly apiVersion: string;
  readonly namespaced: boolean;
}

/**
 * Options of {@link createTestCrd}.
 *
 * @example
 * ```ts
 * import { createTestCrd, type TestCrdOptions } from '@kindex/testing';
 * import { ApiextensionsV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * // A cluster-scoped kind with a schema, so the real server validates spec.
 * const options: TestCrdOptions = {
 *   kind: 'Tenant',
 *   scope: 'Cluster',
 *   specSchema: { type: 'object', properties: { quota: { type: 'integer', minimum: 0 } } },
 * };
 * const crd = await createTestCrd(kubeConfig.makeApiClient(ApiextensionsV1Api), kubeConfig.makeApiClient(CustomObjectsApi), options);
 * ```
 */
export interface TestCrdOptions {
  /** API group. Defaults to a fresh one per call, so that tests never share a group. */
  readonly group?: string;
  /** Kind; the plural is its lower case plus `s`. Defaults to `Widget`. */
  readonly kind?: string;
  /** Defaults to `Namespaced`. */
  readonly scope?: 'Namespaced' | 'Cluster';
  /** Declares the status subresource. Defaults to true. */
  readonly statusSubresource?: boolean;
  /** The schema of `spec`. Defaults to a free-form object (unknown fields preserved). */
  readonly specSchema?: V1JSONSchemaProps;
}

/** {@link TestCrdOptions}' keys and value checks: unknown keys are rejected, not ignored. */
const TEST_CRD_OPTIONS = defineOptions<TestCrdOptions>('createTestCrd options', {
  group: Type.Optional(Type.String({ minLength: 1, description: 'an API group such as widgets.example.com' })),
  kind: Type.Optional(Type.String({ pattern: '^[A-Z][A-Za-z0-9]*$', description: 'a kind name in UpperCamelCase, such as Widget' })),
  scope: Type.Optional(Type.Union([Type.Literal('Namespaced'), Type.Literal('Cluster')], { description: "'Namespaced' or 'Cluster'" })),
  statusSubresource: Type.Optional(Type.Boolean({ description: 'true or false' })),
  specSchema: Type.Optional(Type.Unknown()),
});

/**
 * Creates a CustomResourceDefinition (by default `Widget` in a fresh group, spec and status
 * free-form) and waits until its resource is served, which on a real server happens
 * asynchronously after creation.
 *
 * @example
 * ```ts
 * import { createTestCrd, useTestApiServer } from '@kindex/testing';
 * import { resourceKind } from '@kindex/informer';
 * import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
 *
 * describe('WebApp controller', () => {
 *   const server = useTestApiServer();
 *   it('reconciles a custom resource', async () => {
 *     const kc = server().kubeConfig;
 *     // A CRD with a unique group, established before this resolves.
 *     const crd = await createTestCrd(kc.makeApiClient(ApiextensionsV1Api), kc.makeApiClient(CustomObjectsApi), { kind: 'WebApp', statusSubresource: true });
 *     const WebApps = resourceKind(crd);
 *   });
 * });
 * ```
 */
export async function createTestCrd(
  apiextensions: ApiextensionsV1Api,
  custom: CustomObjectsApi,
  options: TestCrdOptions = {},
): Promise<TestCrd> {
  TEST_CRD_OPTIONS.check(options);
  const group = options.group ?? `${uniqueName('g')}.kindex.test`;
  const kind = options.kind ?? 'Widget';
  const plural = `${kind.toLowerCase()}s`;
  const version = 'v1';
  const scope = options.scope ?? 'Namespaced';
  // client-node's serializer knows this field by its model name (snake case) only; the wire name
  // would be dropped silently, and a real server would then prune spec and status to {}.
  const freeForm: V1JSONSchemaProps = { type: 'object', x_kubernetes_preserve_unknown_fields: true };
  await apiextensions.createCustomResourceDefinition({
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope,
        names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
        versions: [
          {
            name: version,
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: options.specSchema ?? freeForm, status: freeForm } } },
            ...((options.statusSubresource ?? true) ? { subresources: { status: {} } } : {}),
          },
        ],
      },
    },
  });
  await eventually(() => custom.listClusterCustomObject({ group, version, plural }), {
    timeoutMs: 30_000,
    intervalMs: 100,
    description: `serving ${plural}.${group}`,
  });
  return {
    name: `${plural}.${group}`,
    group,
    version,
    plural,
    kind,
    apiVersion: `${group}/${version}`,
    namespaced: scope === 'Namespaced',
  };
}

/** A custom object of `crd` (type of the CustomObjectsApi's untyped results). */
export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    creationTimestamp?: string;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}
