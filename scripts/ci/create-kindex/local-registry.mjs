// A real npm registry on loopback for the tests of the published packages: verdaccio with its
// storage in a temporary directory, anonymous reads, publishing of @kindex/* and create-kindex by
// a user the harness registers, and every other package proxied to the registry npm is
// configured with, so third-party dependencies resolve as they would for a user.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A free TCP port on 127.0.0.1 (released before verdaccio binds it: a small window, fine on CI). */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts verdaccio (from the workspace's node_modules, `root`) and resolves once it answers.
 * Returns its url, the environment for npm and pnpm to use it (a userconfig with the publish
 * token: npm refuses to publish without one), and stop().
 */
export async function startLocalRegistry(root) {
  const dir = mkdtempSync(join(tmpdir(), 'kindex-registry-'));
  // Proxied packages are kept between runs (a warm cache, as a user's registry is), the
  // published ones are not: every run publishes afresh.
  const cacheRoot = process.env.KINDEX_CACHE_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kindex');
  const storage = join(cacheRoot, 'registry-storage');
  for (const published of ['@kindex', 'create-kindex']) rmSync(join(storage, published), { recursive: true, force: true });
  const uplink = spawnSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).stdout.trim() || 'https://registry.npmjs.org/';
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${storage}`,
      'auth:',
      '  htpasswd:',
      `    file: ${join(dir, 'htpasswd')}`,
      '    max_users: 10',
      // JWT tokens: the default legacy ones make verdaccio hash the password again on every request.
      'security:',
      '  api:',
      '    jwt:',
      '      sign:',
      '        expiresIn: 1d',
      'uplinks:',
      '  upstream:',
      `    url: ${uplink}`,
      '    timeout: 60s',
      // Metadata of proxied packages is trusted for an hour before it is asked for again.
      '    maxage: 60m',
      'packages:',
      "  '@kindex/*':",
      '    access: $all',
      '    publish: $authenticated',
      "  'create-kindex':",
      '    access: $all',
      '    publish: $authenticated',
      "  '**':",
      '    access: $all',
      '    proxy: upstream',
      // Longer than undici's idle connections live, so a client never reuses one the server closed.
      'server:',
      '  keepAliveTimeout: 120',
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  const bin = join(root, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  const child = spawn(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, VERDACCIO_APPDIR: dir },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode} before answering:\n${output}`);
    const ok = await fetch(`${url}/-/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() - started > 30_000) throw new Error(`verdaccio did not answer on ${url} within 30 s:\n${output}`);
    await sleep(100);
  }
  // A user to publish as (verdaccio's htpasswd plugin registers on first login, as `npm adduser` does).
  const user = await fetch(`${url}/-/user/org.couchdb.user:kindex-ci`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'kindex-ci', password: 'kindex-ci-password', type: 'user', roles: [], date: new Date().toISOString() }),
  });
  if (!user.ok) throw new Error(`verdaccio refused to register the publishing user: ${user.status} ${await user.text()}`);
  const { token } = await user.json();
  const npmrc = join(dir, 'npmrc');
  writeFileSync(
    npmrc,
    [`registry=${url}/`, `//127.0.0.1:${port}/:_authToken=${token}`, 'fund=false', 'audit=false', 'update-notifier=false', ''].join('\n'),
  );
  const env = { npm_config_userconfig: npmrc, npm_config_registry: `${url}/` };
  return {
    url,
    env,
    /** What verdaccio printed (warnings and errors), for a failure's report. */
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
