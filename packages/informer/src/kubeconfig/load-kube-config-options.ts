import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';

/**
 * Where `loadKubeConfig` looks, for a command line's flags and for tests.
 *
 * @example
 * ```ts
 * import { loadKubeConfig, type LoadKubeConfigOptions } from '@kindex/informer';
 *
 * // What `my-operator --kubeconfig dev.kubeconfig --context kind-dev` asks for.
 * const options: LoadKubeConfigOptions = { kubeconfig: 'dev.kubeconfig', context: 'kind-dev' };
 * const kubeConfig = loadKubeConfig(options);
 * ```
 */
export interface LoadKubeConfigOptions {
  /**
   * A kubeconfig file to use instead of searching, as kubectl's `--kubeconfig`: relative to `cwd`;
   * one file, not merged with others. Defaults to none (search `KUBECONFIG`, `~/.kube/config`, the pod).
   */
  readonly kubeconfig?: string;
  /** The context to use instead of the kubeconfig's `current-context`, as kubectl's `--context`. Defaults to the current-context. */
  readonly context?: string;
  /** The environment to read `KUBECONFIG`, `HOME` and `KUBERNETES_SERVICE_HOST`/`PORT` from. Defaults to `process.env`. */
  readonly env?: Record<string, string | undefined>;
  /** The directory relative paths (`kubeconfig`, `KUBECONFIG` entries) start from. Defaults to `process.cwd()`. */
  readonly cwd?: string;
}

/** {@link LoadKubeConfigOptions}' keys and value checks. */
export const LOAD_KUBE_CONFIG_OPTIONS = defineOptions<LoadKubeConfigOptions>('loadKubeConfig options', {
  kubeconfig: Type.Optional(Type.String({ minLength: 1, description: 'the path of a kubeconfig file' })),
  context: Type.Optional(Type.String({ minLength: 1, description: 'the name of a context of the kubeconfig' })),
  env: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String(), Type.Undefined()]), {
      description: 'an object of environment variables, as process.env',
    }),
  ),
  cwd: Type.Optional(Type.String({ minLength: 1, description: 'a directory path' })),
});
