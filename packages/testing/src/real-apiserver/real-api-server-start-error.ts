/**
 * Thrown when etcd, kube-apiserver or kube-controller-manager does not come up (or back up after a restart).
 *
 * @example
 * ```ts
 * import { RealApiServerStartError, startTestApiServer } from '@kindex/testing';
 *
 * try {
 *   const server = await startTestApiServer(); // KINDEX_APISERVER=real starts a real kube-apiserver
 *   await server.stop();
 * } catch (error) {
 *   if (error instanceof RealApiServerStartError) {
 *     console.error(`${error.component} did not start${error.portTaken ? ' (port in use)' : ''}:\n${error.logTail}`);
 *   }
 *   throw error;
 * }
 * ```
 */
export class RealApiServerStartError extends Error {
  override readonly name = 'RealApiServerStartError';
  readonly code = 'KINDEX_REAL_APISERVER_START_FAILED';
  constructor(
    message: string,
    /** Which process failed. */
    readonly component: 'etcd' | 'kube-apiserver' | 'kube-controller-manager',
    /** The last lines of that process's output, already part of the message. */
    readonly logTail: string,
    options?: ErrorOptions,
  ) {
    super(logTail === '' ? message : `${message}\n--- last lines of ${component}'s output ---\n${logTail}`, options);
  }

  /** Whether the process failed because a port was taken between choosing and binding it. */
  get portTaken(): boolean {
    return /address already in use/i.test(this.logTail);
  }
}
