import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** One operator replica of a sharding scenario running as a child process, as its stdout lines tell it. */
export interface ShardReplica {
  readonly identity: string;
  readonly child: ChildProcess;
  /** The shards it said it owns last (`{ event: 'owned', owned }` lines). */
  owned: number[];
  /** Whether it said it leads (`{ event: 'leading' | 'following' }` lines, when it runs leader election). */
  leading: boolean;
  /** What it printed on stderr, and stdout lines that are not JSON. */
  stderr: string;
  readonly exited: Promise<void>;
}

/**
 * Starts `fixture` (`node --import tsx <fixture>`, from the integration-tests package) with
 * `env` added to this process's environment, and follows what it prints.
 */
export function spawnShardReplica(fixture: string, identity: string, env: Readonly<Record<string, string>>): ShardReplica {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    cwd: path.resolve(path.dirname(fixture), '../..'),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, KINDEX_IDENTITY: identity },
  });
  const replica: ShardReplica = {
    identity,
    child,
    owned: [],
    leading: false,
    stderr: '',
    exited: new Promise((resolve) => child.once('exit', () => resolve())),
  };
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      try {
        const parsed = JSON.parse(line) as { event?: string; owned?: number[] };
        if (parsed.event === 'owned') replica.owned = parsed.owned ?? [];
        if (parsed.event === 'leading' || parsed.event === 'following') replica.leading = parsed.event === 'leading';
      } catch {
        replica.stderr += `${line}\n`;
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (replica.stderr += chunk));
  return replica;
}
