import type { ApiServerFaults, TestApiServer } from '../test-api-server.js';

/**
 * The part of a mocha context {@link requireFault} needs.
 *
 * @example
 * ```ts
 * import { type SkippableContext } from '@kindex/testing';
 *
 * // Any test framework context that can skip works, not only mocha's.
 * function requireDocker(context: SkippableContext): void {
 *   if (!process.env['DOCKER_HOST']) context.skip();
 * }
 * ```
 */
export interface SkippableContext {
  /** Marks the running test skipped (mocha throws from it to end the test). */
  skip(): void;
  readonly test?: { title: string } | undefined;
}

/**
 * Returns the fault `name` of `server`, or skips the running test (mocha `this.skip()`) with a
 * reason naming the server flavor and the fault when the server cannot produce it.
 *
 * Use a `function () {}` test body so `this` is mocha's context.
 *
 * @example
 * ```ts
 * import { requireFault, useTestApiServer } from '@kindex/testing';
 * const server = useTestApiServer();
 * it('recovers from a restart', async function () {
 *   const restart = requireFault(this, server(), 'restart');
 *   await restart();
 * });
 * ```
 */
export function requireFault<K extends keyof ApiServerFaults>(
  context: SkippableContext,
  server: TestApiServer,
  name: K,
): NonNullable<ApiServerFaults[K]> {
  const fault = server.faults[name];
  if (fault === undefined) {
    skipWithReason(context, `the ${server.flavor} API server cannot inject the fault '${name}'`);
  }
  // Bound, because a server may implement its faults as methods that use `this`.
  // The faults' signatures differ (forbid takes a rule): bind needs them seen as one callable type.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  return (fault as (...args: never[]) => unknown).bind(server.faults) as NonNullable<ApiServerFaults[K]>;
}

/**
 * Skips the running test with a stated reason, shown in the test title, for behaviour the chosen
 * server legitimately lacks (for example garbage collection on a real kube-apiserver that runs no
 * controllers).
 *
 * @example
 * ```ts
 * import { useTestApiServer } from '@kindex/testing';
 * import { skipWithReason } from '@kindex/testing/internal';
 *
 * describe('leader election', () => {
 *   const server = useTestApiServer();
 *   it('fails over within the lease duration', function () {
 *     // Skip, and say why in the test title, instead of passing silently.
 *     if (server().flavor === 'embedded') skipWithReason(this, 'needs real Lease semantics');
 *   });
 * });
 * ```
 */
export function skipWithReason(context: SkippableContext, reason: string): never {
  if (context.test !== undefined) context.test.title += ` (skipped: ${reason})`;
  context.skip();
  // mocha's skip() throws to abort the test; this line only satisfies the `never` type.
  throw new Error(`skipped: ${reason}`);
}
