/**
 * A check of one aspect of the operator: it returns when fine and throws an Error saying what
 * is wrong otherwise (controller-runtime's `healthz.Checker`, which returns an error).
 */
export type HealthCheck = () => void | Promise<void>;

/** Which endpoint a check belongs to: liveness (`healthz`) or readiness (`readyz`). */
export type HealthCheckKind = 'healthz' | 'readyz';

/** The outcome of one endpoint's checks. */
export interface HealthReport {
  readonly ok: boolean;
  readonly checks: readonly { readonly name: string; readonly ok: boolean; readonly reason?: string }[];
}

/** Two checks of one kind share a name. */
export class DuplicateHealthCheckError extends Error {
  override readonly name = 'DuplicateHealthCheckError';
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
 * operator.health.addReadyzCheck('leader-election', () => {
 *   if (!elector.isLeader() && !elector.isWarmFollower()) throw new Error('neither leading nor a synced follower');
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
