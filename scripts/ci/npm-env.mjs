// `pnpm test` hands its own settings to its children as npm_config_* variables, some of which npm
// does not know (verify-deps-before-run, _jsr-registry, npm-globalconfig); every npx and npm the
// test command started inherited them and printed "npm warn Unknown env config" for each, 54
// lines a run. npm itself says which ones it does not know; remove just those, so the settings npm
// does know (registry, cache, proxy) still reach it.
import { spawnSync } from 'node:child_process';

/**
 * Removes from `env` (in place) the npm_config_* variables npm warns about as unknown, asking the
 * npm on PATH once; returns the names it removed.
 */
export function removeUnknownNpmConfig(env = process.env) {
  const probe = spawnSync('npm', ['config', 'get', 'registry'], { env, encoding: 'utf8' });
  const removed = [];
  for (const [, name] of (probe.stderr ?? '').matchAll(/Unknown env config "([^"]+)"/g)) {
    const variable = `npm_config_${name.replace(/-/g, '_')}`.toLowerCase();
    for (const key of Object.keys(env)) {
      if (key.toLowerCase() === variable) {
        delete env[key];
        removed.push(key);
      }
    }
  }
  return removed;
}
