import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubernetesObject, StoreDelta } from '@kindex/core';
import { createNamespace, eventually, uniqueName, useTestApiServer } from '@kindex/testing';
import { InformerRegistry, Kinds, type InformerLease, type SharedInformerSink } from '../index.js';

/** A sink that writes what it is given into a shared log, and throws when told to. */
class LoggingSink implements SharedInformerSink<KubernetesObject> {
  constructor(
    readonly label: string,
    readonly log: string[],
    readonly throws = false,
  ) {}
  onInformerDelta(delta: StoreDelta<KubernetesObject>, listing: boolean): void {
    if (listing) return;
    this.log.push(`${this.label} ${delta.type} ${delta.object.metadata?.name}`);
    if (this.throws) throw new Error(`${this.label} broke`);
  }
}

describe('SharedInformer', function () {
  this.timeout(60_000);
  const server = useTestApiServer();
  let lease: InformerLease | undefined;
  afterEach(async () => {
    await lease?.release();
    lease = undefined;
  });

  it('hands each change to its sinks in a plain loop, in connection order, then to onDelta listeners; a throwing sink is reported and stops nobody', async () => {
    const namespace = await createNamespace(server().kubeConfig);
    lease = new InformerRegistry().acquire({ kubeConfig: server().kubeConfig, type: Kinds.ConfigMap, namespace });
    const informer = lease.informer;
    const log: string[] = [];
    const errors: Error[] = [];
    informer.errors$.subscribe((e) => errors.push(e));
    informer.connect(new LoggingSink('first', log, true));
    const disconnectSecond = informer.connect(new LoggingSink('second', log));
    informer.onDelta((delta, listing) => {
      if (!listing) log.push(`listener ${delta.type} ${delta.object.metadata?.name}`);
    });
    await informer.start();
    expect(await informer.waitForSync({ timeoutMs: 30_000 })).to.equal(true);

    const core = server().kubeConfig.makeApiClient(CoreV1Api);
    const name = uniqueName('cm');
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name } } });
    await eventually(() => expect(log).to.have.length(3));
    expect(log).to.deep.equal([`first create ${name}`, `second create ${name}`, `listener create ${name}`]);
    expect(errors.map((e) => e.message)).to.deep.equal(['first broke']);

    // A disconnected sink hears nothing more; the others go on.
    disconnectSecond();
    await core.deleteNamespacedConfigMap({ namespace, name });
    await eventually(() => expect(log).to.have.length(5));
    expect(log.slice(3)).to.deep.equal([`first delete ${name}`, `listener delete ${name}`]);
  });
});
