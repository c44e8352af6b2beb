import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { eventually } from '../../index.js';
import { startOrphanWatchdog } from './orphan-watchdog.js';
import { isProcessAlive as alive } from './process-alive.js';
import { ProcessGroup } from './process-group.js';

// The shell prints the pid of the background child it started, so the test can watch it too.
const PARENT_AND_CHILD = 'sleep 300 & echo $! > "$0"; wait';

describe('ProcessGroup', function () {
  this.timeout(30_000);
  let dir: string;
  const started: ProcessGroup[] = [];

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'kindex-process-group-test-'));
  });

  afterEach(async () => {
    for (const group of started.splice(0)) group.signal('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  async function spawnShell(script: string, ...args: string[]): Promise<ProcessGroup> {
    const group = await ProcessGroup.spawn('/bin/sh', ['-c', script, ...args], { logFile: path.join(dir, 'log') });
    started.push(group);
    return group;
  }

  async function childPid(file: string): Promise<number> {
    return eventually(() => {
      const pid = Number(readFileSync(file, 'utf8').trim());
      expect(pid).to.be.greaterThan(0);
      return pid;
    });
  }

  it('stop() ends the process and what it started, and resolves once it has exited', async () => {
    const pidFile = path.join(dir, 'child.pid');
    const group = await spawnShell(PARENT_AND_CHILD, pidFile);
    const child = await childPid(pidFile);
    expect(alive(child)).to.equal(true);
    const exit = await group.stop();
    expect(exit.signal).to.equal('SIGTERM');
    expect(group.running).to.equal(false);
    await eventually(() => expect(alive(child)).to.equal(false));
  });

  it('stop() falls back to SIGKILL when the process ignores SIGTERM', async () => {
    const ready = path.join(dir, 'ready');
    const group = await spawnShell('trap "" TERM; touch "$0"; while :; do sleep 1; done', ready);
    await eventually(() => expect(existsSync(ready)).to.equal(true));
    const exit = await group.stop(300);
    expect(exit.signal).to.equal('SIGKILL');
  });

  it('reports a natural exit with its code, and stop() afterwards is a no-op', async () => {
    const group = await spawnShell('exit 3');
    expect(await group.exited).to.deep.equal({ code: 3, signal: null });
    expect(await group.stop()).to.deep.equal({ code: 3, signal: null });
  });

  it('writes the output to the log file', async () => {
    const group = await spawnShell('echo out; echo err >&2');
    await group.exited;
    expect(readFileSync(path.join(dir, 'log'), 'utf8')).to.equal('out\nerr\n');
  });
});

describe('startOrphanWatchdog', function () {
  this.timeout(30_000);

  it('kills the listed process groups and removes the directory once the parent is gone', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kindex-watchdog-test-'));
    const logs = mkdtempSync(path.join(tmpdir(), 'kindex-watchdog-test-logs-'));
    const parent = await ProcessGroup.spawn('/bin/sh', ['-c', 'sleep 300'], { logFile: path.join(logs, 'parent') });
    const server = await ProcessGroup.spawn('/bin/sh', ['-c', 'sleep 300 & wait'], { logFile: path.join(logs, 'server') });
    const groupsFile = path.join(dir, 'groups');
    writeFileSync(groupsFile, `${server.pid}\n`);
    const watchdog = await startOrphanWatchdog(groupsFile, dir, path.join(logs, 'watchdog'), parent.pid);
    try {
      expect(server.running).to.equal(true);
      parent.signal('SIGKILL');
      await eventually(() => expect(server.running).to.equal(false), { timeoutMs: 10_000 });
      await eventually(() => expect(existsSync(dir)).to.equal(false), { timeoutMs: 10_000 });
      await eventually(() => expect(watchdog.running).to.equal(false), { timeoutMs: 10_000 });
    } finally {
      for (const group of [parent, server, watchdog]) group.signal('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      rmSync(logs, { recursive: true, force: true });
    }
  });
});
