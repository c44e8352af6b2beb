import { expect } from 'chai';
import { UpdateControl, WorkQueue, type ReconcileQueue } from '@kindex/core';
import { createNamespace, eventually } from '@kindex/testing';
import { Operator } from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { WIDGET_CRD, WidgetKind, type Widget } from '../testing-fixtures/widget.js';

/** One captured call stack: its frames, and those in kindex's own source (not node's, not a dependency's, not this test's). */
interface StackFigures {
  readonly frames: readonly string[];
  readonly kindex: readonly string[];
  readonly files: ReadonlySet<string>;
}

const THIS_FILE = new URL(import.meta.url).pathname;

function figures(stack: string | undefined): StackFigures {
  // The first line is the message; the first frame is the capturing function, in this file (counted in
  // `frames`, not in `kindex`).
  const frames = (stack ?? '').split('\n').filter((line) => line.startsWith('    at '));
  const kindex: string[] = [];
  const files = new Set<string>();
  for (const frame of frames) {
    const location = /\(([^()]*):\d+:\d+\)$/.exec(frame)?.[1] ?? /at ([^ ]*):\d+:\d+$/.exec(frame)?.[1];
    if (location === undefined) continue;
    const path = location.startsWith('file://') ? new URL(location).pathname : location;
    if (path === THIS_FILE || path.includes('/node_modules/') || !/\/packages\/[^/]+\/src\//.test(path)) continue;
    kindex.push(frame);
    files.add(path.replace(/^.*\/packages\//, ''));
  }
  return { frames, kindex, files };
}

/**
 * How deep one watch event of a primary runs, from the socket to the reconciler: the stack at the
 * work queue's `add` (the synchronous run from the watch response's data) and the stack in
 * `reconcile` (the run after the microtask that takes the key). Each hop should be a call a
 * reader can follow by "go to definition", so no listener list sits on the path. Set
 * KINDEX_EVENT_PATH_REPORT=1 to print both stacks and the figures.
 */
describe('one watch event of a primary', function () {
  this.timeout(60_000);
  const suite = useOperatorSuite({ crd: WIDGET_CRD });
  let limit: number;
  before(() => {
    limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 200;
  });
  after(() => {
    Error.stackTraceLimit = limit;
  });

  it('reaches the work queue and then the reconciler by direct calls, without a listener list', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const name = 'deep';
    let watching = false;
    let toQueue: string | undefined;
    let toReconciler: string | undefined;
    // The stack of the watch event's add: only adds of the watched primary, after the list.
    class CapturingQueue extends WorkQueue<string> {
      override add(item: string, priority?: number): void {
        if (watching && toQueue === undefined && item === `${ns}/${name}`) toQueue = new Error('queue').stack;
        super.add(item, priority);
      }
    }
    suite.operator = new Operator({ kubeConfig: suite.server.kubeConfig });
    suite.operator.register<Widget>(
      {
        reconcile: () => {
          if (watching && toReconciler === undefined) toReconciler = new Error('reconcile').stack;
          return UpdateControl.noUpdate();
        },
      },
      { kind: WidgetKind, namespaces: [ns], queue: (options): ReconcileQueue => new CapturingQueue(options) },
    );
    await suite.operator.start();
    watching = true;
    await suite.client.create(WidgetKind, { apiVersion: 'test.kindex.dev/v1', kind: 'Widget', metadata: { name, namespace: ns } });
    await eventually(() => expect(toReconciler).to.be.a('string'));

    const queue = figures(toQueue);
    const reconciler = figures(toReconciler);
    const kindexFiles = new Set([...queue.files, ...reconciler.files]);
    if (process.env['KINDEX_EVENT_PATH_REPORT']) {
      console.log([toQueue, toReconciler].join('\n\n'));
      console.log(
        `frames ${queue.frames.length} + ${reconciler.frames.length} = ${queue.frames.length + reconciler.frames.length}; ` +
          `kindex ${queue.kindex.length} + ${reconciler.kindex.length} = ${queue.kindex.length + reconciler.kindex.length} ` +
          `in ${kindexFiles.size} files: ${[...kindexFiles].sort().join(', ')}`,
      );
    }
    expect(queue.kindex.join('\n')).to.not.match(/Listeners\.emit/);
    expect(reconciler.kindex.join('\n')).to.not.match(/Listeners\.emit/);
    // The hops of docs/architecture.md ("One watch event"), one frame each: the line splitter (the
    // response's data listener itself), its JSON frames, the reflector's watch (the decoder's frame
    // sink), its view, the shared informer, the cache, the event source, its trigger end, the
    // processor's accept and enqueue (10; it was 13 with a data-handler closure, a frame-sink
    // closure and deliverFrame, 21 with a listener list at four hops); then the processor's take
    // task, take, process and attempt and the dispatcher's four (8). A frame more is a hop more:
    // say why in the architecture page.
    expect(queue.kindex, queue.kindex.join('\n')).to.have.length.at.most(10);
    expect(reconciler.kindex, reconciler.kindex.join('\n')).to.have.length.at.most(8);
    expect([...kindexFiles], [...kindexFiles].join('\n')).to.have.length.at.most(10);
  });
});
