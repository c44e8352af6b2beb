import { appendFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';

/** The lease timings a scenario passes its replicas (KINDEX_TIMING). */
export interface ReplicaTiming {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** What a replica fixture process reads from its environment, and how it reports. */
export interface ReplicaFixture {
  /** A required environment variable; throws naming the fixture and the variable when unset. */
  readonly env: (name: string) => string;
  readonly identity: string;
  readonly kubeConfig: KubeConfig;
  readonly timing: ReplicaTiming;
  /** Appends a JSON line to the records file (sync: a SIGKILL loses nothing already recorded). */
  readonly record: (line: object) => void;
  /** Prints a JSON line on stdout, for the test to follow. */
  readonly say: (line: object) => void;
}

/**
 * Reads the common environment of a replica fixture: KINDEX_IDENTITY, KINDEX_RECORDS (file),
 * KINDEX_KUBECONFIG (file) and KINDEX_TIMING (JSON).
 */
export function replicaFixture(fixture: string): ReplicaFixture {
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
