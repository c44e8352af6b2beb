import { expect } from 'chai';
import { InvalidSelectorError, ResourceID, UnknownOptionError, UpdateControl, type Reconciler } from '@kindex/core';
import { createNamespace, eventually } from '@kindex/testing';
import { Controller, InformerEventSource, Kinds, KubeClient, NotCachedError } from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { WIDGET_CRD, WidgetKind, type Widget } from '../testing-fixtures/widget.js';

// Configuration is checked where it is written, and the primaries' field selector works end to end.

const noop: Reconciler<Widget, KubeClient> = { reconcile: () => UpdateControl.noUpdate() };

describe('Controller configuration', function () {
  this.timeout(60_000);
  const suite = useOperatorSuite({ crd: WIDGET_CRD });
  let controller: Controller<Widget> | undefined;
  afterEach(async () => {
    await controller?.stop({ drainTimeoutMs: 5_000 });
    controller = undefined;
  });

  it('rejects an unknown option passed from JavaScript, naming it and the accepted ones', () => {
    const options = { kind: WidgetKind, namespace: ['a'] } as never;
    const attempt = () => new Controller<Widget>(noop, options, suite.client);
    expect(attempt).to.throw(
      UnknownOptionError,
      /^Unknown option controller widgets\.test\.kindex\.dev options\.namespace \(did you mean "namespaces"\?\)\. controller widgets\.test\.kindex\.dev options accepts: .*namespaces/,
    );
    expect(() => new Controller<Widget>(noop, { kind: WidgetKind, labelselector: 'a=b' } as never, suite.client)).to.throw(
      UnknownOptionError,
      /did you mean "labelSelector"/,
    );
    expect(() => new Controller<Widget>(noop, { kind: WidgetKind, reflector: { pagesize: 10 } } as never, suite.client)).to.throw(
      UnknownOptionError,
      /controller widgets\.test\.kindex\.dev options\.reflector\.pagesize \(did you mean "pageSize"\?\)/,
    );
  });

  it('rejects a label selector that does not parse when the controller is configured', () => {
    const attempt = () => new Controller<Widget>(noop, { kind: WidgetKind, labelSelector: 'team in (a' }, suite.client);
    expect(attempt).to.throw(InvalidSelectorError, /controller widgets\.test\.kindex\.dev: labelSelector "team in \(a" is invalid/);
    try {
      attempt();
    } catch (error) {
      expect((error as InvalidSelectorError).selector).to.equal('team in (a');
    }
  });

  it('rejects bad selectors when an event source is configured, before it is built', () => {
    expect(() => InformerEventSource.from(Kinds.ConfigMap, WidgetKind).withName('maps').withLabelSelector('a=b,,c')).to.throw(
      InvalidSelectorError,
      /event source maps: labelSelector "a=b,,c" is invalid/,
    );
    expect(() => InformerEventSource.from(Kinds.ConfigMap, WidgetKind).withName('maps').withFieldSelector('metadata.name')).to.throw(
      InvalidSelectorError,
      /event source maps: fieldSelector "metadata.name" is invalid/,
    );
    expect(() =>
      InformerEventSource.from(Kinds.ConfigMap, WidgetKind).withReflectorOptions({ pageSize: 5, watchTimeout: 3 } as never),
    ).to.throw(UnknownOptionError, /event source \S+ reflector options\.watchTimeout \(did you mean "watchTimeoutSeconds"\?\)/);
  });

  it('lists, watches and reconciles only the primaries its field selector matches', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const reconciled: string[] = [];
    controller = new Controller<Widget>(
      {
        reconcile: (w) => {
          reconciled.push(w.metadata!.name!);
          return UpdateControl.noUpdate();
        },
      },
      { kind: WidgetKind, namespaces: [ns], fieldSelector: 'metadata.name=chosen' },
      suite.client,
    );
    const widget = (name: string): Widget => ({
      apiVersion: 'test.kindex.dev/v1',
      kind: 'Widget',
      metadata: { name, namespace: ns },
      spec: { size: 1 },
    });
    await suite.client.create(WidgetKind, widget('other'));
    await controller.start();
    await suite.client.create(WidgetKind, widget('chosen'));
    await suite.client.create(WidgetKind, widget('another'));
    await eventually(() => expect(reconciled).to.include('chosen'));
    await new Promise((r) => setTimeout(r, 300));
    expect(reconciled).to.deep.equal(['chosen']);
    expect(controller.primaryCache.list().map((w) => w.metadata?.name)).to.deep.equal(['chosen']);
    expect(() => controller!.primaryCache.get(ResourceID.of('other', ns))).to.throw(NotCachedError);
  });
});
