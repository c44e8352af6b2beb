/**
 * The kubeconfig stage: finding and checking the KubeConfig an operator talks to the cluster
 * with, before any request, so a missing or broken kubeconfig is one line and a fix instead of
 * a stack trace or minutes of retries.
 *
 * - {@link loadKubeConfig} (this file): kubectl's order (`--kubeconfig`, then `KUBECONFIG`
 *   merged as kubectl merges it, then `~/.kube/config`), then the pod's service account, parsed
 *   by client-node's KubeConfig. Use it in place of client-node's `loadFromDefault()`, which
 *   falls back to `http://localhost:8080` when it finds nothing.
 * - `assertUsableKubeConfig` (`assert-usable-kube-config.ts`): the checks `loadKubeConfig`
 *   ends with (a current context that exists, its cluster, no plain HTTP without
 *   `insecure-skip-tls-verify`); `new KubeClient()` runs them on every KubeConfig it is given,
 *   however it was loaded.
 * - The errors (`kube-config-errors.ts`): `KubeConfigError` and one subclass per failure.
 *
 * @module
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfigWithPrefix } from './internal/load.js';
import { LOAD_KUBE_CONFIG_OPTIONS, type LoadKubeConfigOptions } from './load-kube-config-options.js';

/**
 * Loads the kubeconfig as kubectl finds it, and checks it can be used, without a request.
 *
 * In order, the first that applies: the `kubeconfig` path (`--kubeconfig`); the files `KUBECONFIG`
 * lists (separated by `:`, `;` on Windows; missing ones skipped, the rest merged as kubectl merges
 * them: the first file to define a name or a current-context wins); `~/.kube/config`; inside a pod
 * (`KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT` set and the service account token at
 * `/var/run/secrets/kubernetes.io/serviceaccount/token`), client-node's in-cluster configuration.
 * Then `context` replaces the current-context, and `assertUsableKubeConfig` checks the result.
 *
 * Unlike client-node's `loadFromDefault()`, it never falls back to `http://localhost:8080`.
 *
 * @throws A `KubeConfigError` subclass naming the file and the fix: `KubeConfigNotFoundError`
 *   (nothing found, listing where it looked), `KubeConfigFileNotFoundError` (the `kubeconfig`
 *   path or every `KUBECONFIG` path missing), `KubeConfigParseError` (unreadable or not YAML, with
 *   line and column), `KubeConfigContextError` (no such context, listing those there are),
 *   `KubeConfigInsecureServerError` (plain HTTP without `insecure-skip-tls-verify`).
 *
 * @example
 * ```ts
 * import { KubeConfigError, Operator, loadKubeConfig } from '@kindex/informer';
 *
 * try {
 *   const operator = new Operator({ kubeConfig: loadKubeConfig() });
 *   await operator.run();
 * } catch (error) {
 *   if (!(error instanceof KubeConfigError)) throw error;
 *   console.error(error.message); // e.g. no kubeconfig found (...)\nFix: pass --kubeconfig <file>, ...
 *   process.exitCode = 1;
 * }
 * ```
 */
export function loadKubeConfig(options: LoadKubeConfigOptions = {}): KubeConfig {
  LOAD_KUBE_CONFIG_OPTIONS.check(options);
  return loadKubeConfigWithPrefix(options, '');
}
