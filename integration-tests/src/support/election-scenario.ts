import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { ResourceID, type KubernetesObject } from '@kindex/core';
import { KubeClient, Kinds, resourceKind, type Lease, type ResourceKind } from '@kindex/informer';
import { createNamespace, createTestCrd, type TestApiServer } from '@kindex/testing';
import { ReplicaProcess, type ReplicaSetup } from './replica-process.js';

/** The primary of the election replicas. */
export interface Counter extends KubernetesObject {
  spec?: { value?: number };
  status?: { observed?: number; by?: string };
}

/**
 * Everything the multi-process leader election scenarios share: a Counter CRD, a namespace with
 * `counters` primaries, the kubeconfig in a file for the children, a records file, and a churn
 * loop that keeps changing the counters.
 */
export class ElectionScenario {
  readonly client: KubeClient;
  readonly replicas: ReplicaProcess[] = [];
  /** Last value written to each counter's spec, by name. */
  readonly values = new Map<string, number>();
  #churning: Promise<void> | undefined;
  #stopChurn = false;

  private constructor(
    readonly setup: ReplicaSetup,
    readonly kind: ResourceKind<Counter>,
    server: TestApiServer,
  ) {
    this.client = new KubeClient(server.kubeConfig);
  }

  static async create(
    server: TestApiServer,
    options: { counters: number; timing: ReplicaSetup['timing']; onLost?: 'exit' | 'standby' },
  ): Promise<ElectionScenario> {
    const crd = await createTestCrd(
      server.kubeConfig.makeApiClient(ApiextensionsV1Api),
      server.kubeConfig.makeApiClient(CustomObjectsApi),
      { kind: 'Counter' },
    );
    const group = crd.name.slice('counters.'.length);
    const namespace = await createNamespace(server.kubeConfig);
    const dir = mkdtempSync(path.join(tmpdir(), 'kindex-election-'));
    const kubeconfigFile = path.join(dir, 'kubeconfig');
    writeFileSync(kubeconfigFile, server.kubeConfig.exportConfig());
    const setup: ReplicaSetup = {
      kubeconfigFile,
      namespace,
      group,
      recordsFile: path.join(dir, 'records.jsonl'),
      timing: options.timing,
      ...(options.onLost ? { onLost: options.onLost } : {}),
    };
    const kind = resourceKind<Counter>({ group, version: 'v1', kind: 'Counter', plural: 'counters', namespaced: true });
    const scenario = new ElectionScenario(setup, kind, server);
    for (let i = 0; i < options.counters; i++) {
      const name = `c${i}`;
      await scenario.client.create(kind, { apiVersion: `${group}/v1`, kind: 'Counter', metadata: { name, namespace }, spec: { value: 0 } });
      scenario.values.set(name, 0);
    }
    return scenario;
  }

  /** Starts a replica and waits until its caches synced. */
  async spawn(identity: string, timeoutMs = 60_000): Promise<ReplicaProcess> {
    const replica = new ReplicaProcess(identity, this.setup);
    this.replicas.push(replica);
    await replica.waitFor((l) => l.event === 'started', timeoutMs, 'start');
    return replica;
  }

  /** The holder on the lease, per the server. */
  async holder(): Promise<string | undefined> {
    const lease = await this.client.get<Lease>(Kinds.Lease, ResourceID.of('counters', this.setup.namespace));
    const holder = lease?.spec?.holderIdentity;
    return holder === '' ? undefined : holder;
  }

  async lease(): Promise<Lease | undefined> {
    return this.client.get<Lease>(Kinds.Lease, ResourceID.of('counters', this.setup.namespace));
  }

  /** Starts changing counters round-robin, one write every `intervalMs`. */
  startChurn(intervalMs = 25): void {
    this.#stopChurn = false;
    const names = [...this.values.keys()];
    this.#churning = (async () => {
      for (let i = 0; !this.#stopChurn; i++) {
        const name = names[i % names.length]!;
        const value = this.values.get(name)! + 1;
        await this.client.patch(this.kind, ResourceID.of(name, this.setup.namespace), { spec: { value } });
        this.values.set(name, value);
        await new Promise((r) => setTimeout(r, intervalMs));
      }
    })();
  }

  async stopChurn(): Promise<void> {
    this.#stopChurn = true;
    await this.#churning;
  }

  /** The counters as the server has them. */
  async counters(): Promise<Map<string, Counter>> {
    const result = new Map<string, Counter>();
    for (const name of this.values.keys()) {
      const c = await this.client.get<Counter>(this.kind, ResourceID.of(name, this.setup.namespace));
      if (c !== undefined) result.set(name, c);
    }
    return result;
  }

  /** Ends every replica still running (SIGKILL: for cleanup after failures only). */
  killAll(): void {
    for (const r of this.replicas) if (r.running) r.signal('SIGKILL');
  }
}
