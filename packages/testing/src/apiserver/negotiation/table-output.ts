// Server-side printing: a GET whose Accept asks for `as=Table;g=meta.k8s.io;v=v1` (what
// `kubectl get` sends) is answered with a `meta.k8s.io/v1` Table, as kube-apiserver does: the
// columns of the kind's printer (builtin-table-printers.ts), and for custom resources Name plus
// the CRD version's additionalPrinterColumns, evaluated as Kubernetes JSONPath
// (apiextensions/custom-resource-table.ts, chosen by the caller). Rows carry the object's metadata (PartialObjectMetadata), kubectl's default.
// A watch asked for as a Table (`kubectl get --watch`) gets one single-row Table per event.

import type { TablePrinter } from './builtin-table-printers.js';
import type { Json } from '../storage/object-store.js';

/** The Table group/version a request asks for, if any (`v1` preferred over `v1beta1`). */
export function tableVersionOf(accept: string | undefined): 'v1' | 'v1beta1' | undefined {
  if (accept === undefined) return undefined;
  let found: 'v1' | 'v1beta1' | undefined;
  for (const clause of accept.split(',')) {
    const params = new Map(
      clause
        .split(';')
        .slice(1)
        .map((p) => p.trim().split('=') as [string, string]),
    );
    if (params.get('as') !== 'Table' || params.get('g') !== 'meta.k8s.io') continue;
    const v = params.get('v');
    if (v === 'v1') return 'v1';
    if (v === 'v1beta1') found = 'v1beta1';
  }
  return found;
}

function meta(obj: Json): Json {
  const m = obj['metadata'];
  return m !== null && typeof m === 'object' ? (m as Json) : {};
}

/**
 * Converts a GET answer (one object or a list) into a Table.
 * @param printer the kind's printer: a built-in's, or a CRD version's printer columns.
 */
export function toTable(answer: Json, tableVersion: 'v1' | 'v1beta1', printer: TablePrinter): Json {
  const now = Date.now();
  const isList = Array.isArray(answer['items']);
  const objects = isList ? (answer['items'] as Json[]) : [answer];
  const listMeta = isList ? meta(answer) : { resourceVersion: meta(answer)['resourceVersion'] };
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${tableVersion}`,
    metadata: listMeta,
    columnDefinitions: printer.columns.map((c) => ({ ...c })),
    rows: objects.map((o) => {
      const conditions = printer.conditions?.(o);
      return {
        cells: printer.cells(o, now).map((cell) => cell ?? null),
        ...(conditions === undefined ? {} : { conditions }),
        object: { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${tableVersion}`, metadata: meta(o) },
      };
    }),
  };
}

/**
 * The event lines of a watch asked for as a Table: each object becomes a one-row Table, with the
 * column definitions on the first event only (kube-apiserver sends the headers once); ERROR
 * events pass as they are.
 * @param printer the kind's printer when an event needs it (a CRD's may change during the watch).
 */
export function tableWatchTransform(tableVersion: 'v1' | 'v1beta1', printer: () => TablePrinter): (line: string) => string {
  let first = true;
  return (line) => {
    const event = JSON.parse(line) as { type: string; object: Json };
    if (event.type === 'ERROR') return line;
    const table = toTable(event.object, tableVersion, printer());
    if (!first) table['columnDefinitions'] = null;
    first = false;
    return `${JSON.stringify({ type: event.type, object: table })}\n`;
  };
}
