import { spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * Runs `script` (a TypeScript file, through tsx) in a child Node with `--expose-gc` and `args`,
 * its stderr shown, and returns the JSON of the last line it printed: how the standalone benches
 * (bounded-cache, fleet) run each contender in a process of its own, so one's heap never counts
 * in another's.
 */
export async function runJsonChild<T>(script: string, args: readonly string[]): Promise<T> {
  const proc = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(proc, 'exit')) as [number];
  if (code !== 0) throw new Error(`child ${script} ${args.join(' ')} exited with ${code}`);
  return JSON.parse(out.trim().split('\n').pop()!) as T;
}
