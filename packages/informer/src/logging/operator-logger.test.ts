import { expect } from 'chai';
import { pino } from 'pino';
import { ResourceID, UpdateControl, type Context, type KubernetesObject, type Reconciler } from '@kindex/core';
import { noopLogger } from '@kindex/core/internal';
import { CoreV1Api } from '@kubernetes/client-node';
import { createNamespace, eventually } from '@kindex/testing';
import { InformerEventSource, Kinds, KubeClient, Operator, type KubeEventSourceContext, type ResourceKind } from '../index.js';
import { createOperatorLogger } from '../internal.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { WIDGET_CRD, WidgetKind, type Widget } from '../testing-fixtures/widget.js';

interface ConfigMap extends KubernetesObject {
  data?: Record<string, string>;
}
const ConfigMapKind = Kinds.ConfigMap as unknown as ResourceKind<ConfigMap>;

interface LogLine {
  level: number;
  msg: string;
  controller?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  reconcileID?: string;
  triggers?: number;
  causes?: { source: string; type: string; event?: string; object?: string; count: number }[];
  err?: { message: string };
  [field: string]: unknown;
}

/** A pino logger at debug level whose JSON lines land in `lines`. */
function capture() {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { lines, logger };
}

/** Copies `data.value` of the ConfigMaps labelled `widget=<name>` into the widget's status. */
class WidgetReconciler implements Reconciler<Widget, KubeClient> {
  gate: Promise<void> | undefined;
  fail = false;
  prepareEventSources(context: KubeEventSourceContext<Widget>) {
    return [
      InformerEventSource.from(ConfigMapKind, WidgetKind)
        .withName('configs')
        .withNamespacesInheritedFromController()
        .withSecondaryToPrimaryMapper((cm) => {
          if (cm.metadata?.labels?.['explode']) throw new Error('mapper cannot read this ConfigMap');
          return cm.metadata?.labels?.['widget'] ? [ResourceID.of(cm.metadata.labels['widget'], cm.metadata.namespace)] : [];
        })
        .build(context),
    ];
  }
  async reconcile(w: Widget, context: Context<Widget, KubeClient>) {
    context.getLogger().info({ step: 'read-config' }, 'reading the config');
    await this.gate;
    if (this.fail) throw new Error('config service unavailable');
    const value = context.getSecondaryResources(ConfigMapKind)[0]?.data?.['value'] ?? '';
    return UpdateControl.patchStatus<Widget>({ ...w, status: { value } });
  }
}

describe('createOperatorLogger', () => {
  it('uses a given logger, makes a pino logger for a level, and logs nothing by default', () => {
    const { logger } = capture();
    expect(createOperatorLogger(logger)).to.equal(logger);
    const made = createOperatorLogger('warn') as unknown as pino.Logger;
    expect(made.level).to.equal('warn');
    expect(createOperatorLogger(undefined)).to.equal(noopLogger);
  });

  it('names the option and the accepted values for a bad one', () => {
    expect(() => createOperatorLogger('loud' as never)).to.throw(
      TypeError,
      /Operator option logger: unknown level "loud"; use one of fatal, error, warn, info, debug, trace, silent/,
    );
    expect(() => createOperatorLogger({} as never)).to.throw(TypeError, /expected a pino logger/);
  });
});

describe('Operator logs', function () {
  this.timeout(60_000);
  const suite = useOperatorSuite({ crd: WIDGET_CRD });

  async function run(namespace: string, reconciler: WidgetReconciler) {
    const { lines, logger } = capture();
    suite.operator = new Operator({ kubeConfig: suite.server.kubeConfig, logger });
    suite.operator.register<Widget>(reconciler, { kind: WidgetKind, name: 'widgets', namespaces: [namespace] });
    await suite.operator.start();
    return lines;
  }

  const reconciled = (lines: LogLine[], name: string) => lines.filter((l) => l.msg === 'reconciled' && l.name === name);
  const setConfig = async (ns: string, value: string, create = false) => {
    const core = suite.server.kubeConfig.makeApiClient(CoreV1Api);
    const body = { metadata: { name: 'cfg', namespace: ns, labels: { widget: 'w' } }, data: { value } };
    if (create) await core.createNamespacedConfigMap({ namespace: ns, body });
    else await core.replaceNamespacedConfigMap({ name: 'cfg', namespace: ns, body });
  };

  it("puts controller, kind, namespace, name and reconcile id on every reconcile line, the reconciler's own included", async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const lines = await run(ns, new WidgetReconciler());
    expect(lines.find((l) => l.msg === 'caches synced, reconciling')).to.include({ controller: 'widgets', kind: 'Widget', level: 30 });
    await suite.client.create(WidgetKind, {
      apiVersion: 'test.kindex.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: ns },
      spec: { size: 1 },
    });
    await eventually(() => expect(reconciled(lines, 'w')).to.have.length.at.least(1));
    const line = reconciled(lines, 'w')[0]!;
    expect(line).to.include({ level: 20, controller: 'widgets', kind: 'Widget', namespace: ns, name: 'w', triggers: 1 });
    expect(line.reconcileID).to.match(/^[0-9a-f-]{36}$/);
    expect(line.durationMs).to.be.a('number');
    expect(line.causes).to.deep.equal([{ source: 'primary', type: 'resource', event: 'create', object: `${ns}/w`, count: 1 }]);
    const own = lines.find((l) => l.msg === 'reading the config' && l.reconcileID === line.reconcileID);
    expect(own).to.include({ level: 30, step: 'read-config', controller: 'widgets', kind: 'Widget', namespace: ns, name: 'w' });
  });

  it('names the secondary that changed, and how many of its events coalesced, on the line of the reconcile it caused', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const reconciler = new WidgetReconciler();
    const lines = await run(ns, reconciler);
    await setConfig(ns, 'v0', true);
    await suite.client.create(WidgetKind, {
      apiVersion: 'test.kindex.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: ns },
      spec: { size: 1 },
    });
    await eventually(async () =>
      expect((await suite.client.get<Widget>(WidgetKind, ResourceID.of('w', ns)))?.status?.value).to.equal('v0'),
    );

    // Hold the next reconcile inside the reconciler while the config changes three times: the
    // three events coalesce into the one reconcile that follows.
    let open!: () => void;
    reconciler.gate = new Promise((resolve) => (open = resolve));
    const reads = () => lines.filter((l) => l.msg === 'reading the config' && l.name === 'w').length;
    const readsBefore = reads();
    await setConfig(ns, 'v1');
    await eventually(() => expect(reads()).to.equal(readsBefore + 1));
    // The reconcile held at the gate, known by its id: the line of the reconcile that wrote v0 can
    // be logged after the test saw v0 (and status echoes may add lines), so a position counted
    // before the change could point at an earlier reconcile (seen on the real server under load).
    const gatedId = lines.filter((l) => l.msg === 'reading the config' && l.name === 'w')[readsBefore]!.reconcileID;
    const fromGated = () => {
      const all = reconciled(lines, 'w');
      const at = all.findIndex((l) => l.reconcileID === gatedId);
      return at < 0 ? [] : all.slice(at);
    };
    await setConfig(ns, 'v2');
    await setConfig(ns, 'v3');
    await eventually(() => expect(suite.operator!.controllers[0]!.describePrimary(`${ns}/w`).pending?.triggers ?? 0).to.be.at.least(2));
    open();
    reconciler.gate = undefined;
    await eventually(async () =>
      expect((await suite.client.get<Widget>(WidgetKind, ResourceID.of('w', ns)))?.status?.value).to.equal('v3'),
    );
    await eventually(() => expect(fromGated().length).to.be.at.least(2));

    const [first, second] = fromGated();
    const fromConfigs = (l: LogLine | undefined) => l?.causes?.filter((c) => c.source === 'configs');
    expect(fromConfigs(first)).to.deep.equal([{ source: 'configs', type: 'resource', event: 'update', object: `${ns}/cfg`, count: 1 }]);
    // The status writes of the reconciles come back as primary events; the configs cause is what matters.
    expect(fromConfigs(second)).to.deep.equal([{ source: 'configs', type: 'resource', event: 'update', object: `${ns}/cfg`, count: 2 }]);
    expect(second!.triggers).to.be.at.least(2);
  });

  it('logs a problem the controller moves past at warn level, naming the source and the error', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const lines = await run(ns, new WidgetReconciler());
    const core = suite.server.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'bad', namespace: ns, labels: { explode: 'yes' } } } });
    await eventually(() => expect(lines.filter((l) => l.msg.startsWith('event source problem'))).to.have.length.at.least(1));
    const problem = lines.find((l) => l.msg.startsWith('event source problem'))!;
    expect(problem).to.include({ level: 40, controller: 'widgets', kind: 'Widget', source: 'configs' });
    expect(problem.err).to.include({ type: 'MapperError', message: `object ${ns}/bad: mapper threw: mapper cannot read this ConfigMap` });
    // The readable form, as at info level (where `err` and its stack are left out).
    expect(problem['error']).to.equal(`MapperError: object ${ns}/bad: mapper threw\n  cause: mapper cannot read this ConfigMap`);
  });

  it('logs a failed reconcile at error level with the error and its causes', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const reconciler = new WidgetReconciler();
    reconciler.fail = true;
    const lines = await run(ns, reconciler);
    await suite.client.create(WidgetKind, {
      apiVersion: 'test.kindex.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: ns },
      spec: { size: 1 },
    });
    await eventually(() => expect(lines.filter((l) => l.msg === 'reconcile failed')).to.have.length.at.least(2));
    const [first, retry] = lines.filter((l) => l.msg === 'reconcile failed');
    expect(first).to.include({ level: 50, controller: 'widgets', namespace: ns, name: 'w' });
    expect(first!.err?.message).to.equal('config service unavailable');
    expect(first!.causes?.[0]).to.include({ source: 'primary', event: 'create' });
    expect(retry!.causes).to.deep.equal([{ source: 'retry', type: 'retry', count: 1 }]);
    expect(retry!.attempt).to.equal(2);
  });
});
