import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
/**
 * How long and how often {@link eventually} retries.
 *
 * @example
 * ```ts
 * import { eventually, type EventuallyOptions, type TestApiServer } from '@kindex/testing';
 * import { CoreV1Api } from '@kubernetes/client-node';
 * import assert from 'node:assert/strict';
 * declare const server: TestApiServer;
 *
 * // Generous: CI machines are slow; the description ends up in the failure message.
 * const options: EventuallyOptions = { timeoutMs: 30_000, intervalMs: 100, description: 'ConfigMap stamped by the operator' };
 * const core = server.kubeConfig.makeApiClient(CoreV1Api);
 * await eventually(async () => {
 *   const cm = await core.readNamespacedConfigMap({ name: 'hello', namespace: 'default' });
 *   assert.equal(cm.metadata?.annotations?.['example.com/seen'], 'yes');
 * }, options);
 * ```
 */
export interface EventuallyOptions {
  /** Gives up after this many milliseconds. Defaults to 10000. */
  readonly timeoutMs?: number;
  /** Waits this many milliseconds between attempts. Defaults to 50. */
  readonly intervalMs?: number;
  /** Names what is awaited, prefixed to the error when it never passes. Defaults to `eventually`. */
  readonly description?: string;
}

/** {@link EventuallyOptions}' keys and value checks: unknown keys are rejected, not ignored. */
const EVENTUALLY_OPTIONS = defineOptions<EventuallyOptions>('eventually options', {
  timeoutMs: Type.Optional(Type.Number({ minimum: 0, description: 'a number of milliseconds, 0 or more' })),
  intervalMs: Type.Optional(Type.Number({ minimum: 0, description: 'a number of milliseconds, 0 or more' })),
  description: Type.Optional(Type.String({ description: 'a description of what is awaited' })),
});

/**
 * Retries an assertion until it passes and returns its result; when time runs out, rethrows the
 * last failure with the attempt count and elapsed time prefixed to its message.
 *
 * Use it for what Kubernetes makes asynchronous (garbage collection, watch delivery), never to
 * paper over a race the test could avoid (watching from a list's resourceVersion is exact).
 *
 * @example
 * ```ts
 * import { eventually } from '@kindex/testing';
 * import type { CoreV1Api } from '@kubernetes/client-node';
 * import { expect } from 'chai';
 * declare const core: CoreV1Api;
 * declare const namespace: string;
 *
 * await eventually(async () => {
 *   expect((await core.listNamespacedPod({ namespace })).items).to.have.length(0);
 * }, { timeoutMs: 30_000 });
 * ```
 */
export async function eventually<T>(assertion: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  EVENTUALLY_OPTIONS.check(options);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 50;
  const description = options.description ?? 'eventually';
  const started = Date.now();
  let attempts = 0;
  let lastError: unknown;
  for (;;) {
    attempts++;
    const remaining = timeoutMs - (Date.now() - started);
    try {
      // A hanging attempt (a request that never answers) must not outlive the deadline.
      return await withDeadline(Promise.resolve().then(assertion), Math.max(remaining, 1));
    } catch (error) {
      lastError = error;
    }
    const elapsed = Date.now() - started;
    if (elapsed + intervalMs > timeoutMs) {
      throw withContext(lastError, `${description} did not pass after ${attempts} attempts in ${elapsed} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

class AttemptTimeoutError extends Error {
  override readonly name = 'AttemptTimeoutError';
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AttemptTimeoutError(`attempt still pending after ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

// The last error itself is rethrown (not wrapped) so that mocha still shows chai's expected/actual
// diff; only its message gains the context.
function withContext(error: unknown, context: string): Error {
  if (error instanceof Error) {
    error.message = `${context}: ${error.message}`;
    return error;
  }
  return new Error(`${context}: ${String(error)}`, { cause: error });
}
