/**
 * Installing CRDs: server-side apply, then waiting until the API server serves them.
 *
 * @module
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { ResourceID } from '@kindex/core';
import { KubeApiError } from '../client/kube-api-error.js';
import { KubeClient } from '../client/kube-client.js';
import { resourceKind } from '../kind/resource-kind.js';
import type { CustomResourceDefinition } from './crd-manifest.js';

const CustomResourceDefinitions = resourceKind<CustomResourceDefinition & { status?: CrdStatus }>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});

interface CrdStatus {
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

/**
 * Options of {@link installCrds}.
 *
 * @example
 * ```ts
 * import type { InstallCrdsOptions } from '@kindex/informer';
 *
 * const options: InstallCrdsOptions = { fieldManager: 'web-operator', timeoutMs: 60_000 };
 * ```
 */
export interface InstallCrdsOptions {
  /** Field manager of the apply. Defaults to `kindex`. */
  readonly fieldManager?: string;
  /** How long to wait for every CRD to be Established. Defaults to 30 000 ms. */
  readonly timeoutMs?: number;
  /** Take ownership of fields another manager set (the CRD is this operator's). Defaults to true. */
  readonly force?: boolean;
  /**
   * Create the CRDs that do not exist and leave existing ones as they are, instead of applying:
   * for an operator that installs its CRDs on first start but must not change CRDs an
   * administrator manages; it needs only the `get` and `create` verbs. Defaults to false.
   */
  readonly onlyIfMissing?: boolean;
}

/**
 * A CRD the API server did not establish in time, or refused (`NamesAccepted` false: a plural or
 * short name taken by another CRD); `reason` and `message` are the server's.
 *
 * @example
 * ```ts
 * import { CrdNotEstablishedError } from '@kindex/informer';
 *
 * const explain = (error: unknown) => (error instanceof CrdNotEstablishedError ? `${error.crd}: ${error.message}` : String(error));
 * ```
 */
export class CrdNotEstablishedError extends Error {
  override readonly name = 'CrdNotEstablishedError';
  readonly code = 'KINDEX_CRD_NOT_ESTABLISHED';
  constructor(
    readonly crd: string,
    message: string,
  ) {
    super(`CRD ${crd} is not Established: ${message}`);
  }
}

/**
 * Applies CRDs by server-side apply (creating or updating them), or only creates the missing ones
 * (`onlyIfMissing`), and waits until each is Established, so that objects of its kinds can be
 * written right after.
 *
 * @throws {KubeApiError} when the server refuses a CRD (a schema it finds invalid is a 422 naming the field).
 * @throws {CrdNotEstablishedError} when a CRD's names conflict or it is not Established within `timeoutMs`.
 *
 * @example
 * ```ts
 * import Type from 'typebox';
 * import { customResource, installCrds, loadKubeConfig } from '@kindex/informer';
 *
 * const Widgets = customResource({ group: 'example.com', kind: 'Widget', plural: 'widgets', versions: { v1: { spec: Type.Object({}) } } });
 * const kubeConfig = loadKubeConfig(); // --kubeconfig, KUBECONFIG, ~/.kube/config or the pod's service account
 * await installCrds(kubeConfig, [Widgets.crd]);
 * ```
 */
export async function installCrds(
  kubeConfig: KubeConfig,
  crds: readonly CustomResourceDefinition[],
  options: InstallCrdsOptions = {},
): Promise<void> {
  const client = new KubeClient(kubeConfig, { fieldManager: options.fieldManager ?? 'kindex' });
  for (const crd of crds) {
    if (options.onlyIfMissing) {
      if ((await client.get(CustomResourceDefinitions, ResourceID.of(crd.metadata.name))) !== undefined) continue;
      try {
        await client.create(CustomResourceDefinitions, crd);
      } catch (error) {
        // Another replica created it between the get and the create: what this mode wants.
        if (!(error instanceof KubeApiError && error.status === 409)) throw error;
      }
    } else await client.apply(CustomResourceDefinitions, crd, { force: options.force ?? true });
  }
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (const crd of crds) {
    const name = crd.metadata.name;
    for (;;) {
      const live = await client.get<CustomResourceDefinition & { status?: CrdStatus }>(CustomResourceDefinitions, ResourceID.of(name));
      const conditions = live?.status?.conditions ?? [];
      if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
      const names = conditions.find((c) => c.type === 'NamesAccepted' && c.status === 'False');
      if (names) throw new CrdNotEstablishedError(name, `names not accepted (${names.reason ?? ''}): ${names.message ?? ''}`);
      if (Date.now() > deadline) {
        throw new CrdNotEstablishedError(
          name,
          `not Established after ${options.timeoutMs ?? 30_000} ms; conditions: ${JSON.stringify(conditions)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
