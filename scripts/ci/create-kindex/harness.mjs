// The steps the create-kindex checks share: running commands with their time, publishing the
// workspace's packages to the loopback registry as a release does, and checking what was published.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The packages a release publishes, all at one version (.changeset/config.json's fixed group). */
export const PUBLISHED = [
  { name: '@kindex/core', dir: 'packages/core', entry: 'dist/index.js' },
  { name: '@kindex/informer', dir: 'packages/informer', entry: 'dist/index.js' },
  { name: '@kindex/testing', dir: 'packages/testing', entry: 'dist/index.js' },
  { name: 'create-kindex', dir: 'packages/create-kindex', entry: 'dist/cli.js' },
];
export const PNPM = ['--yes', 'pnpm@10.34.8'];

/** The seconds since `started`, one decimal. */
export const seconds = (started) => ((Date.now() - started) / 1000).toFixed(1);

/**
 * Runs a command; throws naming it and its directory when it fails. With `capture`, returns its
 * output (and still prints it, unless `quiet`: then only when it fails), for checks on warnings.
 */
export function run(command, args, options = {}) {
  const { capture = false, quiet = false, ...spawnOptions } = options;
  const started = Date.now();
  if (!quiet) console.log(`$ ${command} ${args.join(' ')}${spawnOptions.cwd ? `   (in ${spawnOptions.cwd})` : ''}`);
  const result = spawnSync(command, args, {
    stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...spawnOptions,
  });
  if (capture && (!quiet || result.status !== 0)) {
    if (result.stdout) process.stdout.write(result.stdout);
    if (result.stderr) process.stderr.write(result.stderr);
  }
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal}) in ${spawnOptions.cwd ?? process.cwd()}`);
  }
  if (!quiet) console.log(`  (${seconds(started)} s)`);
  return { stdout: result.stdout ?? '', stderr: result.stderr ?? '', seconds: (Date.now() - started) / 1000 };
}

/**
 * `pnpm publish` of every package to the registry, as a release does (pnpm writes the version in
 * place of `workspace:*` and applies publishConfig), then checks the manifests the registry
 * serves: one shared version, no `workspace:` range left, dependencies on each other at exactly
 * that version. Needs a built workspace (`tsc -b`, as the test command runs first). Returns the version.
 */
export async function publishWorkspace(root, registry, env) {
  const versions = new Set();
  for (const { name, dir, entry } of PUBLISHED) {
    if (!existsSync(join(root, dir, entry)))
      throw new Error(`${name} is not built (${dir}/${entry} is missing): run \`npx tsc -b\` before publishing`);
  }
  const filters = PUBLISHED.flatMap(({ name }) => ['--filter', name]);
  run('npx', [...PNPM, '--recursive', ...filters, 'publish', '--registry', `${registry.url}/`, '--no-git-checks', '--access', 'public'], {
    cwd: root,
    env,
  });
  for (const { name } of PUBLISHED) {
    const url = `${registry.url}/${name.replace('/', '%2f')}`;
    const response = await fetch(url).catch((error) => {
      throw new Error(`GET ${url}: ${error.cause?.message ?? error.message}`);
    });
    if (!response.ok) throw new Error(`the registry does not serve ${name} after publishing it: ${response.status}`);
    const packument = await response.json();
    const version = packument['dist-tags']?.latest;
    versions.add(version);
    const manifest = packument.versions[version];
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
        if (String(range).startsWith('workspace:')) throw new Error(`${name}@${version} was published with ${field}.${dep} = ${range}`);
        if (PUBLISHED.some((p) => p.name === dep) && range !== version)
          throw new Error(`${name}@${version} depends on ${dep}@${range}, not on the version released with it (${version})`);
      }
    }
    if (JSON.stringify(manifest.exports ?? {}).includes('/src/'))
      throw new Error(`${name}@${version} exports its TypeScript sources: publishConfig was not applied`);
  }
  if (versions.size !== 1) throw new Error(`the packages were published at different versions: ${[...versions].join(', ')}`);
  return [...versions][0];
}

/**
 * The lines of an install's output that warn about something; `unavoidable` lists patterns for
 * warnings a user cannot act on (deprecations deep in third-party dependencies).
 */
export function installWarnings(output, unavoidable = []) {
  return output
    .split('\n')
    .filter((line) => /\bwarn(ing)?\b|WARN/i.test(line))
    .filter((line) => !unavoidable.some((pattern) => pattern.test(line)));
}
