#!/usr/bin/env node
// Proves npm-env.mjs removes what makes npm warn and nothing else: with a variable pnpm sets and
// npm does not know, npm prints "Unknown env config"; after removeUnknownNpmConfig it prints
// nothing, and a setting npm knows (npm_config_registry) is still there and still used.
// Run by scripts/run-tests.mjs; by hand: `node scripts/ci/npm-env.test.mjs`.
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { removeUnknownNpmConfig } from './npm-env.mjs';

const npmConfigGet = (env, key) => spawnSync('npm', ['config', 'get', key], { env, encoding: 'utf8' });

describe('removeUnknownNpmConfig', () => {
  it('removes the npm_config_* variables npm calls unknown, and keeps the ones it knows', () => {
    const env = {
      ...process.env,
      npm_config_verify_deps_before_run: 'false',
      npm_config__jsr_registry: 'https://npm.jsr.io/',
      npm_config_registry: 'https://registry.example.invalid/',
    };
    const before = npmConfigGet(env, 'registry');
    assert.match(before.stderr, /Unknown env config "verify-deps-before-run"/);
    assert.match(before.stderr, /Unknown env config "_jsr-registry"/);

    const removed = removeUnknownNpmConfig(env);
    assert.deepEqual(removed.sort(), ['npm_config__jsr_registry', 'npm_config_verify_deps_before_run']);
    const after = npmConfigGet(env, 'registry');
    assert.doesNotMatch(after.stderr, /Unknown env config/);
    assert.equal(after.stdout.trim(), 'https://registry.example.invalid/');
  });
});
