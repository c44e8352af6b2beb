/**
 * A check of one aspect of the operator: it returns when fine and throws an Error saying what
 * is wrong otherwise (controller-runtime's `healthz.Checker`, which returns an error).
 *
 * @example
 * ```ts
 * import type { HealthCheck, Operator } from '@kindex/informer';
 * declare const operator: Operator;
 * declare function pingDatabase(): Promise<void>;
 *
 * // Not ready while the database the reconcilers write to is unreachable; the throw's message is the reason.
 * const database: HealthCheck = async () => {
 *   await pingDatabase();
 * };
 * operator.health.addReadyzCheck('database', database);
 * ```
 */
export type HealthCheck = () => void | Promise<void>;

/**
 * Which endpoint a check belongs to: liveness (`healthz`) or readiness (`readyz`).
 *
 * @example
 * ```ts
 * import type { HealthCheckKind, Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * for (const kind of ['healthz', 'readyz'] satisfies HealthCheckKind[]) console.log(kind, operator.health.names(kind));
 * ```
 */
export type HealthCheckKind = 'healthz' | 'readyz';

/**
 * The outcome of one endpoint's checks.
 *
 * @example
 * ```ts
 * import type { HealthReport, Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * // The same report as GET /readyz, without HTTP.
 * const report: HealthReport = await operator.health.run('readyz');
 * if (!report.ok) console.warn(report.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.reason}`));
 * ```
 */
export interface HealthReport {
  readonly ok: boolean;
  readonly checks: readonly { readonly name: string; readonly ok: boolean; readonly reason?: string }[];
}

/**
 * Two checks of one kind share a name.
 *
 * @example
 * ```ts
 * import { DuplicateHealthCheckError, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * try {
 *   operator.health.addReadyzCheck('database', async () => {});
 * } catch (error) {
 *   if (error instanceof DuplicateHealthCheckError) console.error(`${error.kind} check ${error.checkName} exists already`);
 * }
 * ```
 */
export class DuplicateHealthCheckError extends Error {
  override readonly name = 'DuplicateHealthCheckError';
  readonly code = 'KINDEX_DUPLICATE_HEALTH_CHECK';
  constructor(
    readonly kind: HealthCheckKind,
    readonly checkName: string,
  ) {
    super(`a ${kind} check named ${JSON.stringify(checkName)} is registered already; give the new check another name`);
  }
}

/**
 * The named liveness and readiness checks of an operator (controller-runtime's `AddHealthzCheck`
 * and `AddReadyzCheck`): the Operator registers its own (`ping`, `informers`, `controllers`),
 * and other parts add theirs, such as a leader elector's "lease held or warm follower".
 *
 * @example
 * ```ts
 * import type { Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * // Ready only on the replica holding the lease (for a Service that must reach the leader).
 * operator.health.addReadyzCheck('leading', () => {
 *   if (operator.leaderElector !== undefined && !operator.isLeader) throw new Error('not the leader');
 * });
 * ```
 */
export class HealthChecks {
  readonly #checks: Record<HealthCheckKind, Map<string, HealthCheck>> = { healthz: new Map(), readyz: new Map() };

  /** Adds a liveness check: the kubelet restarts the pod while one fails. */
  addHealthzCheck(name: string, check: HealthCheck): void {
    this.#add('healthz', name, check);
  }

  /** Adds a readiness check: traffic and rollouts wait while one fails. */
  addReadyzCheck(name: string, check: HealthCheck): void {
    this.#add('readyz', name, check);
  }

  /** Names of the checks of a kind, in the order added. */
  names(kind: HealthCheckKind): string[] {
    return [...this.#checks[kind].keys()];
  }

  /**
   * Runs the checks of a kind (all but `exclude`, or only `only` when given) concurrently. A
   * check that throws or rejects fails with its message; it never fails the others.
   */
  async run(kind: HealthCheckKind, options: { readonly exclude?: readonly string[]; readonly only?: string } = {}): Promise<HealthReport> {
    const selected = [...this.#checks[kind]].filter(
      ([name]) => (options.only === undefined || name === options.only) && !options.exclude?.includes(name),
    );
    const checks = await Promise.all(
      selected.map(async ([name, check]) => {
        try {
          await check();
          return { name, ok: true };
        } catch (error) {
          return { name, ok: false, reason: error instanceof Error ? error.message : String(error) };
        }
      }),
    );
    return { ok: checks.every((c) => c.ok), checks };
  }

  #add(kind: HealthCheckKind, name: string, check: HealthCheck): void {
    if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(name)) {
      throw new TypeError(
        `${kind} check name ${JSON.stringify(name)}: use lowercase letters, digits and dashes (it becomes the path /${kind}/<name>)`,
      );
    }
    if (typeof check !== 'function') throw new TypeError(`${kind} check ${JSON.stringify(name)}: expected a function, got ${typeof check}`);
    if (this.#checks[kind].has(name)) throw new DuplicateHealthCheckError(kind, name);
    this.#checks[kind].set(name, check);
  }
}
