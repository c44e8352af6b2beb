import { expect } from 'chai';
import { pino } from 'pino';
import { UpdateControl, type Reconciler } from '@kindex/core';
import { createNamespace, eventually } from '@kindex/testing';
import { Controller, KubeClient, Operator, type PrimaryDescription } from '../index.js';
import { type ControllerDebugView } from '../internal.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { WIDGET_CRD, WidgetKind, type Widget } from '../testing-fixtures/widget.js';

interface LogLine {
  level: number;
  msg: string;
  name?: string;
  reconcileID?: string;
  triggers?: number;
  causes?: unknown;
  [field: string]: unknown;
}

/** A pino logger at `level` whose JSON lines land in `lines`. */
function capture(level: 'info' | 'debug') {
  const lines: LogLine[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { lines, logger };
}

/** Counts its reconciles; fails them while `fail` is set. */
class CountingReconciler implements Reconciler<Widget, KubeClient> {
  reconciles = 0;
  fail = false;
  reconcile(): UpdateControl<Widget> {
    this.reconciles++;
    if (this.fail) throw new Error('backend unavailable');
    return UpdateControl.noUpdate();
  }
}

const widget = (name: string, namespace: string): Widget => ({
  apiVersion: 'test.kindex.dev/v1',
  kind: 'Widget',
  metadata: { name, namespace },
  spec: { size: 1 },
});

/** Runs `body` with `KINDEX_INSPECTION` set to `value` (or unset), restoring it after. */
async function withInspectionEnv(value: string | undefined, body: () => void | Promise<void>): Promise<void> {
  const before = process.env['KINDEX_INSPECTION'];
  if (value === undefined) delete process.env['KINDEX_INSPECTION'];
  else process.env['KINDEX_INSPECTION'] = value;
  try {
    await body();
  } finally {
    if (before === undefined) delete process.env['KINDEX_INSPECTION'];
    else process.env['KINDEX_INSPECTION'] = before;
  }
}

describe('Controller inspection', function () {
  this.timeout(60_000);
  const suite = useOperatorSuite({ crd: WIDGET_CRD });

  async function run(ns: string, options: { inspection?: boolean; level?: 'info' | 'debug'; reconciler?: CountingReconciler }) {
    const { lines, logger } = capture(options.level ?? 'info');
    const reconciler = options.reconciler ?? new CountingReconciler();
    suite.operator = new Operator({
      kubeConfig: suite.server.kubeConfig,
      logger,
      server: { port: 0, host: '127.0.0.1', debug: true },
      ...(options.inspection !== undefined ? { inspection: options.inspection } : {}),
    });
    const controller = suite.operator.register<Widget>(reconciler, { kind: WidgetKind, name: 'widgets', namespaces: [ns] });
    await suite.operator.start();
    return { lines, controller, reconciler };
  }

  async function get<T>(path: string): Promise<T> {
    const response = await fetch(`http://127.0.0.1:${suite.operator!.server!.address!.port}${path}`);
    expect(response.status, path).to.equal(200);
    return (await response.json()) as T;
  }

  it('is off by default outside tests, on where @kindex/testing started a server, and an explicit option wins either way', async () => {
    // useOperatorSuite started the test API server, which turned it on for this process.
    expect(process.env['KINDEX_INSPECTION']).to.equal('true');
    const reconciler = new CountingReconciler();
    const client = new KubeClient(suite.server.kubeConfig);
    const inspectionOf = (options: { inspection?: boolean }) => {
      const operator = new Operator({ kubeConfig: suite.server.kubeConfig, ...options });
      return operator.register<Widget>(reconciler, { kind: WidgetKind }).inspection;
    };
    await withInspectionEnv(undefined, () => {
      expect(inspectionOf({}), 'production default').to.equal(false);
      expect(new Controller(reconciler, { kind: WidgetKind }, client).inspection, 'a controller without an Operator').to.equal(false);
      expect(inspectionOf({ inspection: true })).to.equal(true);
    });
    await withInspectionEnv('true', () => {
      expect(inspectionOf({})).to.equal(true);
      expect(inspectionOf({ inspection: false })).to.equal(false);
      const operator = new Operator({ kubeConfig: suite.server.kubeConfig, inspection: false });
      expect(operator.register<Widget>(reconciler, { kind: WidgetKind, inspection: true }).inspection, 'controller option').to.equal(true);
    });
    await withInspectionEnv('0', () => {
      expect(inspectionOf({})).to.equal(false);
    });
  });

  it('names the variable or the option, the value and the fix when they are neither true nor false', async () => {
    await withInspectionEnv('yes', () => {
      expect(() => new Operator({ kubeConfig: suite.server.kubeConfig })).to.throw(
        TypeError,
        'Operator: environment variable KINDEX_INSPECTION must be true or false, got "yes"',
      );
    });
    expect(() => new Operator({ kubeConfig: suite.server.kubeConfig, inspection: 'yes' as never })).to.throw(
      TypeError,
      'Operator: inspection must be true or false, got "yes"',
    );
  });

  it('off: describePrimary and the debug endpoint keep no record and say how to turn inspection on', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const { controller, reconciler } = await run(ns, { inspection: false });
    await suite.client.create(WidgetKind, widget('w', ns));
    await eventually(() => expect(reconciler.reconciles).to.be.at.least(1));

    const hint = /^inspection is off for controller widgets: .*Operator option inspection: true .*KINDEX_INSPECTION=true/;
    const described = controller.describePrimary(`${ns}/w`);
    expect(described).to.include({ key: `${ns}/w`, cached: true, inspection: false, pending: undefined, lastReconcile: undefined });
    expect(described.hint).to.match(hint);
    const served = await get<PrimaryDescription>(`/debug/controllers/widgets/primaries/${ns}/w`);
    expect(served).to.deep.equal({ key: `${ns}/w`, cached: true, inspection: false, hint: described.hint });
    const view = await get<ControllerDebugView>('/debug/controllers/widgets');
    expect(view).to.include({ name: 'widgets', inspection: false });
    expect(view.hint).to.match(hint);
    expect(view.primaryCache).to.include({ objects: 1, synced: true });
  });

  it('on: describePrimary and the debug endpoint show the last reconcile and why it ran', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const { controller, reconciler } = await run(ns, { inspection: true });
    await suite.client.create(WidgetKind, widget('w', ns));
    await eventually(() => expect(controller.describePrimary(`${ns}/w`).lastReconcile?.result).to.equal('success'));
    expect(reconciler.reconciles).to.be.at.least(1);
    const described = controller.describePrimary(`${ns}/w`);
    expect(described.inspection).to.equal(true);
    expect(described).to.not.have.property('hint');
    expect(described.lastReconcile?.causes.causes.map(({ lastAt: _, ...c }) => c)).to.deep.equal([
      { type: 'resource', source: 'primary', event: 'create', objectKey: `${ns}/w`, count: 1 },
    ]);
    const served = await get<PrimaryDescription>(`/debug/controllers/widgets/primaries/${ns}/w`);
    expect(served.lastReconcile?.reconcileID).to.equal(described.lastReconcile?.reconcileID);
    expect((await get<ControllerDebugView>('/debug/controllers/widgets')).inspection).to.equal(true);
  });

  it('off, logs at info: a failed reconcile names its id and how many triggers coalesced, not the causes', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const reconciler = new CountingReconciler();
    reconciler.fail = true;
    const { lines } = await run(ns, { inspection: false, level: 'info', reconciler });
    await suite.client.create(WidgetKind, widget('w', ns));
    await eventually(() => expect(lines.filter((l) => l.msg === 'reconcile failed' && l.name === 'w')).to.have.length.at.least(1));
    const line = lines.find((l) => l.msg === 'reconcile failed' && l.name === 'w')!;
    expect(line).to.include({ level: 50, triggers: 1, namespace: ns });
    expect(line.reconcileID).to.match(/^[0-9a-f-]{36}$/);
    expect(line).to.not.have.property('causes');
    expect(lines.filter((l) => l.msg === 'reconciled')).to.deep.equal([]);
  });

  it('off, logs at debug: each reconcile line still lists its causes', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const { lines, controller } = await run(ns, { inspection: false, level: 'debug' });
    await suite.client.create(WidgetKind, widget('w', ns));
    await eventually(() => expect(lines.filter((l) => l.msg === 'reconciled' && l.name === 'w')).to.have.length.at.least(1));
    const line = lines.find((l) => l.msg === 'reconciled' && l.name === 'w')!;
    expect(line).to.include({ level: 20, triggers: 1 });
    expect(line.causes).to.deep.equal([{ source: 'primary', type: 'resource', event: 'create', object: `${ns}/w`, count: 1 }]);
    expect(controller.describePrimary(`${ns}/w`).lastReconcile).to.equal(undefined);
  });
});
