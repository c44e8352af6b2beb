import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Writes a kubeconfig for a bench server at `url` (plain HTTP with insecure-skip-tls-verify, a
 * fixed token) into a fresh temporary directory, and returns its path: the contenders load it as
 * users load theirs.
 */
export function writeBenchKubeconfig(url: string, prefix = 'kindex-bench-'): string {
  const path = join(mkdtempSync(join(tmpdir(), prefix)), 'kubeconfig');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: bench, cluster: {server: "${url}", insecure-skip-tls-verify: true}}]`,
      'users: [{name: bench, user: {token: bench}}]',
      'contexts: [{name: bench, context: {cluster: bench, user: bench}}]',
      'current-context: bench',
      '',
    ].join('\n'),
  );
  return path;
}
