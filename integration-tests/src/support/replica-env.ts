/**
 * What every replica fixture run as a child process reads from its environment, and how it
 * reports: KINDEX_KUBECONFIG (file), KINDEX_IDENTITY, KINDEX_RECORDS (file: one JSON line per
 * record, written synchronously so a SIGKILL loses nothing already recorded) and KINDEX_TIMING
 * (JSON lease timing); lines on stdout are JSON too, stamped with the pid, identity and time.
 */
import { appendFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';

/** Lease timing of the replicas of one test. */
export interface ReplicaTiming {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** A fixture's view of its environment (see the module comment). */
export interface ReplicaEnv {
  /** The value of a variable the fixture needs; throws naming it when it is unset or empty. */
  readonly env: (name: string) => string;
  readonly identity: string;
  readonly kubeConfig: KubeConfig;
  readonly timing: ReplicaTiming;
  /** Appends a line to the records file. */
  readonly record: (line: object) => void;
  /** Prints a line on stdout for the test to read. */
  readonly say: (line: object) => void;
}

/** Reads the environment of the fixture `fixture` (named in errors). */
export function replicaEnv(fixture: string): ReplicaEnv {
  const env = (name: string): string => {
    const value = process.env[name];
    if (value === undefined || value === '') throw new Error(`${fixture}: set ${name}`);
    return value;
  };
  const identity = env('KINDEX_IDENTITY');
  const records = env('KINDEX_RECORDS');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(env('KINDEX_KUBECONFIG'));
  return {
    env,
    identity,
    kubeConfig,
    timing: JSON.parse(env('KINDEX_TIMING')) as ReplicaTiming,
    record: (line) => appendFileSync(records, `${JSON.stringify({ pid: process.pid, identity, ...line })}\n`),
    say: (line) => void process.stdout.write(`${JSON.stringify({ pid: process.pid, identity, at: Date.now(), ...line })}\n`),
  };
}
