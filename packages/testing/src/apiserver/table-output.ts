// Server-side printing: a GET whose Accept asks for `as=Table;g=meta.k8s.io;v=v1` (what
// `kubectl get` sends) is answered with a `meta.k8s.io/v1` Table, as kube-apiserver does: the
// columns of the kind's printer (ConfigMap: Name, Data, Age; Secret: Name, Type, Data, Age;
// Namespace: Name, Status, Age; Pod: Name, Ready, Status, Restarts, Age; others: Name, Age), and
// for custom resources Name plus the CRD version's additionalPrinterColumns (Name and Age when it
// declares none). Rows carry the object's metadata (PartialObjectMetadata), kubectl's default.
// A watch asked for as a Table (`kubectl get --watch`) gets one single-row Table per event.

import type { Json } from './object-store.js';
import type { ResourceType } from './resource-registry.js';

/** One column of a Table. */
interface Column {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
  readonly cell: (obj: Json) => unknown;
}

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const AGE_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

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

// kubectl's short durations (translateTimestampSince): 45s, 3m, 5h, 2d, 1y.
function age(obj: Json, now: number): string {
  const created = Date.parse(String(meta(obj)['creationTimestamp'] ?? ''));
  if (Number.isNaN(created)) return '<unknown>';
  const s = Math.max(0, Math.floor((now - created) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 === 0 ? '' : `${s % 60}s`}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  return d < 365 * 2 ? `${d}d` : `${Math.floor(d / 365)}y`;
}

function column(name: string, type: string, cell: (obj: Json) => unknown, description = '', format = ''): Column {
  return { name, type, format, description, priority: 0, cell };
}

function builtinColumns(t: ResourceType, now: number): Column[] {
  const nameCol = column('Name', 'string', (o) => meta(o)['name'], NAME_DESCRIPTION, 'name');
  const ageCol = column('Age', 'string', (o) => age(o, now), AGE_DESCRIPTION);
  const count = (o: Json, field: string): number => Object.keys((o[field] as Json | undefined) ?? {}).length;
  switch (t.id) {
    case '/configmaps':
      return [
        nameCol,
        column('Data', 'string', (o) => count(o, 'data') + count(o, 'binaryData'), 'Data contains the configuration data.'),
        ageCol,
      ];
    case '/secrets':
      return [nameCol, column('Type', 'string', (o) => o['type'] ?? ''), column('Data', 'string', (o) => count(o, 'data')), ageCol];
    case '/namespaces':
      return [nameCol, column('Status', 'string', (o) => (o['status'] as Json | undefined)?.['phase'] ?? ''), ageCol];
    case '/pods': {
      const containers = (o: Json): unknown[] => ((o['spec'] as Json | undefined)?.['containers'] as unknown[] | undefined) ?? [];
      const statuses = (o: Json): Json[] => ((o['status'] as Json | undefined)?.['containerStatuses'] as Json[] | undefined) ?? [];
      return [
        nameCol,
        column('Ready', 'string', (o) => `${statuses(o).filter((c) => c['ready'] === true).length}/${containers(o).length}`),
        column('Status', 'string', (o) =>
          meta(o)['deletionTimestamp'] ? 'Terminating' : ((o['status'] as Json | undefined)?.['phase'] ?? ''),
        ),
        column('Restarts', 'string', (o) => statuses(o).reduce((n, c) => n + Number(c['restartCount'] ?? 0), 0)),
        ageCol,
      ];
    }
    default:
      return [nameCol, ageCol];
  }
}

// The simple JSONPath of printer columns: `.spec.replicas`, `.status.conditions[0].type`.
function jsonPathValue(obj: Json, path: string): unknown {
  let v: unknown = obj;
  for (const part of path
    .replace(/^\{?\.?/, '')
    .replace(/\}$/, '')
    .split('.')) {
    if (part === '') continue;
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (m === null) return undefined;
    if (m[1] !== '') v = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json)[m[1]!] : undefined;
    for (const idx of m[2]!.matchAll(/\[(\d+)\]/g)) v = Array.isArray(v) ? v[Number(idx[1])] : undefined;
    if (v === undefined) return undefined;
  }
  return v;
}

// Date columns of CRDs print as ages, like the built-ins' Age.
function dateCell(value: unknown, now: number): unknown {
  return typeof value === 'string' ? age({ metadata: { creationTimestamp: value } }, now) : (value ?? null);
}

function customColumns(crd: Json | undefined, version: string, now: number): Column[] {
  const nameCol = column('Name', 'string', (o) => meta(o)['name'], NAME_DESCRIPTION, 'name');
  const versions = (((crd?.['spec'] as Json | undefined)?.['versions'] as Json[] | undefined) ?? []).find((v) => v['name'] === version);
  const printer = (versions?.['additionalPrinterColumns'] as Json[] | undefined) ?? [];
  if (printer.length === 0) {
    return [
      nameCol,
      column(
        'Age',
        'date',
        (o) => dateCell(meta(o)['creationTimestamp'], now),
        'Custom resource definition column (in JSONPath format): .metadata.creationTimestamp',
      ),
    ];
  }
  return [
    nameCol,
    ...printer.map((p) => ({
      name: String(p['name']),
      type: String(p['type'] ?? 'string'),
      format: String(p['format'] ?? ''),
      description: String(p['description'] ?? `Custom resource definition column (in JSONPath format): ${String(p['jsonPath'])}`),
      priority: Number(p['priority'] ?? 0),
      cell: (o: Json) => {
        const v = jsonPathValue(o, String(p['jsonPath'] ?? ''));
        return p['type'] === 'date' ? dateCell(v, now) : (v ?? null);
      },
    })),
  ];
}

/**
 * Converts a GET answer (one object or a list) into a Table.
 * @param crd the CustomResourceDefinition of a custom type, for its printer columns.
 */
export function toTable(t: ResourceType, version: string, answer: Json, tableVersion: 'v1' | 'v1beta1', crd: Json | undefined): Json {
  const now = Date.now();
  const columns = t.custom ? customColumns(crd, version, now) : builtinColumns(t, now);
  const isList = Array.isArray(answer['items']);
  const objects = isList ? (answer['items'] as Json[]) : [answer];
  const listMeta = isList ? meta(answer) : { resourceVersion: meta(answer)['resourceVersion'] };
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${tableVersion}`,
    metadata: listMeta,
    columnDefinitions: columns.map(({ cell: _c, ...c }) => c),
    rows: objects.map((o) => ({
      cells: columns.map((c) => c.cell(o) ?? null),
      object: { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${tableVersion}`, metadata: meta(o) },
    })),
  };
}

/**
 * The event lines of a watch asked for as a Table: each object becomes a one-row Table, with the
 * column definitions on the first event only (kube-apiserver sends the headers once); ERROR
 * events pass as they are.
 * @param crd reads the CustomResourceDefinition of a custom type when an event needs it.
 */
export function tableWatchTransform(
  t: ResourceType,
  version: string,
  tableVersion: 'v1' | 'v1beta1',
  crd: () => Json | undefined,
): (line: string) => string {
  let first = true;
  return (line) => {
    const event = JSON.parse(line) as { type: string; object: Json };
    if (event.type === 'ERROR') return line;
    const table = toTable(t, version, event.object, tableVersion, crd());
    if (!first) table['columnDefinitions'] = null;
    first = false;
    return `${JSON.stringify({ type: event.type, object: table })}\n`;
  };
}
