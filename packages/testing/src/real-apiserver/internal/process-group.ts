import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

/** How a child process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** What {@link ProcessGroup.spawn} needs besides the command line. */
export interface SpawnOptions {
  /** File that receives the child's stdout and stderr (appended). */
  readonly logFile: string;
  /** Working directory. Defaults to the current one. */
  readonly cwd?: string;
}

/**
 * A child process that leads its own process group, so that stopping it also stops anything it
 * started, and that is killed when this Node process exits, whatever the reason.
 */
export class ProcessGroup {
  /** Resolves once the process has exited; never rejects. */
  readonly exited: Promise<ProcessExit>;
  #exit: ProcessExit | undefined;

  private constructor(
    /** The process id, which is also the process group id. */
    readonly pid: number,
    readonly description: string,
    exited: Promise<ProcessExit>,
  ) {
    this.exited = exited.then((exit) => {
      this.#exit = exit;
      liveGroups.delete(this);
      return exit;
    });
    liveGroups.add(this);
    installExitHandlers();
  }

  /** Starts `command` detached (a new process group), output to `options.logFile`. */
  static async spawn(command: string, args: readonly string[], options: SpawnOptions): Promise<ProcessGroup> {
    const log = openSync(options.logFile, 'a');
    try {
      const child = spawn(command, args, {
        cwd: options.cwd,
        detached: true,
        stdio: ['ignore', log, log],
      });
      const exited = new Promise<ProcessExit>((resolve) => {
        child.once('exit', (code, signal) => resolve({ code, signal }));
        // A spawn failure (ENOENT, EACCES) emits 'error' and never 'exit'.
        child.once('error', () => resolve({ code: null, signal: null }));
      });
      const pid = await new Promise<number>((resolve, reject) => {
        child.once('spawn', () => resolve(child.pid as number));
        child.once('error', reject);
      });
      // A test that forgets stop() must not keep mocha alive; the exit handlers still kill it.
      child.unref();
      return new ProcessGroup(pid, `${command} (pid ${pid})`, exited);
    } finally {
      closeSync(log);
    }
  }

  /** Whether the process has not been seen to exit yet. */
  get running(): boolean {
    return this.#exit === undefined;
  }

  /**
   * Sends SIGTERM to the whole group, then SIGKILL if it has not exited within `graceMs`, and
   * waits for the exit. Idempotent.
   */
  async stop(graceMs = 5_000): Promise<ProcessExit> {
    if (!this.running) return this.exited;
    this.signal('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const first = await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (first === 'timeout') this.signal('SIGKILL');
    return this.exited;
  }

  /** Sends `signal` to every process of the group; a group already gone is not an error. */
  signal(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
}

// Groups not seen to exit yet, killed synchronously if this process goes away first: detached
// children otherwise outlive a crashed or interrupted test run (etcd holding its port and data dir).
const liveGroups = new Set<ProcessGroup>();
// Synchronous clean-ups (removing temp dirs) run after the groups are killed.
const exitCleanups = new Set<() => void>();
let handlersInstalled = false;

/** Runs `cleanup` synchronously if this process exits before {@link removeExitCleanup} is called. */
export function addExitCleanup(cleanup: () => void): void {
  exitCleanups.add(cleanup);
  installExitHandlers();
}

/** Forgets a clean-up registered with {@link addExitCleanup}. */
export function removeExitCleanup(cleanup: () => void): void {
  exitCleanups.delete(cleanup);
}

function killEverything(): void {
  for (const group of liveGroups) {
    try {
      group.signal('SIGKILL');
    } catch {
      // Best effort: the process is exiting and nothing can be reported any more.
    }
  }
  liveGroups.clear();
  for (const cleanup of exitCleanups) {
    try {
      cleanup();
    } catch {
      // Same: best effort at exit.
    }
  }
  exitCleanups.clear();
}

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killEverything);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      killEverything();
      // Listening to a signal disables Node's default of dying from it. When nobody else (mocha)
      // handles it, restore the default and re-raise, so the run still stops as asked.
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}
