import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const FIXTURE = fileURLToPath(new URL('./election-replica.ts', import.meta.url));
const PACKAGE_DIR = path.resolve(path.dirname(FIXTURE), '../..');

/** A line a replica prints on stdout: an election replica's `started`, `leading`, `following`, or a fixture's own events and fields. */
export interface ReplicaLine {
  readonly pid: number;
  readonly identity: string;
  readonly at: number;
  readonly event: 'started' | 'leading' | 'following' | (string & {});
  readonly [field: string]: unknown;
}

/** A line of the records file: one reconcile's start or end, or a write the server accepted. */
export interface ReconcileRecord {
  readonly pid: number;
  readonly identity: string;
  readonly type: 'start' | 'end' | 'wrote';
  readonly key: string;
  readonly value?: number;
  /** On `wrote`: the resourceVersion the server gave the write. */
  readonly rv?: string;
  readonly at: number;
}

/** What every replica of one scenario shares. */
export interface ReplicaSetup {
  readonly kubeconfigFile: string;
  readonly namespace: string;
  readonly group: string;
  readonly recordsFile: string;
  readonly timing: { readonly leaseDurationMs: number; readonly renewDeadlineMs: number; readonly retryPeriodMs: number };
  readonly onLost?: 'exit' | 'standby';
  readonly reconcileMs?: number;
  /** The replica's program. Defaults to `election-replica.ts`. */
  readonly fixture?: string;
  /** More environment for the fixture. Defaults to none. */
  readonly env?: Readonly<Record<string, string>>;
}

/** One replica running as a child process (an election replica by default, see `election-replica.ts`). */
export class ReplicaProcess {
  readonly lines: ReplicaLine[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #stderr = '';
  readonly #child: ChildProcess;
  readonly #waiters = new Set<() => void>();

  constructor(
    readonly identity: string,
    setup: ReplicaSetup,
  ) {
    this.#child = spawn(process.execPath, ['--import', 'tsx', setup.fixture ?? FIXTURE], {
      cwd: PACKAGE_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        KINDEX_KUBECONFIG: setup.kubeconfigFile,
        KINDEX_NAMESPACE: setup.namespace,
        KINDEX_GROUP: setup.group,
        KINDEX_IDENTITY: identity,
        KINDEX_RECORDS: setup.recordsFile,
        KINDEX_TIMING: JSON.stringify(setup.timing),
        KINDEX_ON_LOST: setup.onLost ?? 'exit',
        KINDEX_RECONCILE_MS: String(setup.reconcileMs ?? 30),
        ...setup.env,
      },
    });
    let buffered = '';
    this.#child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
        try {
          this.lines.push(JSON.parse(line) as ReplicaLine);
        } catch {
          // Not ours (a warning printed by node): keep it for diagnostics only.
          this.#stderr += `${line}\n`;
        }
        for (const wake of [...this.#waiters]) wake();
      }
    });
    this.#child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.#stderr += chunk));
    this.exited = new Promise((resolve) => this.#child.once('exit', (code, signal) => resolve({ code, signal })));
    void this.exited.then(() => {
      for (const wake of [...this.#waiters]) wake();
    });
  }

  get pid(): number {
    return this.#child.pid!;
  }

  /** What the replica printed on stderr (and stray stdout lines). */
  get stderr(): string {
    return this.#stderr;
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  get leading(): boolean {
    return this.lines.filter((l) => l.event === 'leading' || l.event === 'following').at(-1)?.event === 'leading';
  }

  signal(signal: NodeJS.Signals): void {
    this.#child.kill(signal);
  }

  /** Resolves with the first line matching `predicate`; rejects after `timeoutMs` or on exit. */
  waitFor(predicate: (line: ReplicaLine) => boolean, timeoutMs: number, description: string): Promise<ReplicaLine> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = this.lines.find(predicate);
        if (found !== undefined) finish(() => resolve(found));
        else if (!this.running) finish(() => reject(new Error(`${this.identity} exited before ${description}; stderr:\n${this.#stderr}`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`${this.identity}: no ${description} within ${timeoutMs} ms; stderr:\n${this.#stderr}`))),
        timeoutMs,
      );
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        settle();
      };
      this.#waiters.add(check);
      check();
    });
  }
}

/** The records file, parsed. */
export function readRecords(file: string): ReconcileRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ReconcileRecord);
}

/** One reconcile: from its start record to its end record, or to `openUntil(pid)` when it never ended (killed). */
export interface ReconcileInterval {
  readonly pid: number;
  readonly key: string;
  readonly value: number;
  readonly start: number;
  readonly end: number;
}

/** Pairs start and end records per process and key (one process never overlaps itself on a key). */
export function intervals(records: readonly ReconcileRecord[], openUntil: (pid: number) => number): ReconcileInterval[] {
  const open = new Map<string, ReconcileRecord>();
  const result: ReconcileInterval[] = [];
  for (const r of records) {
    const id = `${r.pid} ${r.key}`;
    if (r.type === 'start') open.set(id, r);
    else if (r.type === 'end') {
      const start = open.get(id);
      open.delete(id);
      if (start !== undefined) result.push({ pid: r.pid, key: r.key, value: start.value ?? 0, start: start.at, end: r.at });
    }
  }
  for (const s of open.values()) result.push({ pid: s.pid, key: s.key, value: s.value ?? 0, start: s.at, end: openUntil(s.pid) });
  return result;
}

/** Pairs of reconciles of one primary by two processes whose intervals intersect. */
export function overlaps(all: readonly ReconcileInterval[]): [ReconcileInterval, ReconcileInterval][] {
  const byKey = new Map<string, ReconcileInterval[]>();
  for (const i of all) byKey.set(i.key, [...(byKey.get(i.key) ?? []), i]);
  const found: [ReconcileInterval, ReconcileInterval][] = [];
  for (const list of byKey.values()) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length && list[j]!.start <= list[i]!.end; j++) {
        if (list[j]!.pid !== list[i]!.pid) found.push([list[i]!, list[j]!]);
      }
    }
  }
  return found;
}
