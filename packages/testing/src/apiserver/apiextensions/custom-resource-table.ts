// The Table columns of a custom resource, as apiextensions-apiserver prints them (v0.36.3,
// registry/customresource/tableconvertor): Name, then the CRD version's additionalPrinterColumns
// (an Age date column when it declares none), each cell the first result of the column's
// Kubernetes JSONPath, typed by the column: a string column prints the value as client-go's
// jsonpath does, an integer, number or boolean column keeps a value of its type (an integer from
// a float truncated, anything else null), a date column shows an age.

import { NAME_DESCRIPTION, type TablePrinter, type TableColumn } from '../negotiation/builtin-table-printers.js';
import { humanDuration } from '../machinery/human-duration.js';
import { parseKubeJsonPath, printJsonPathValue, type KubeJsonPath } from '../negotiation/kube-jsonpath.js';
import { JsonPathSyntaxError } from '../negotiation/kube-jsonpath-parser.js';
import type { Json } from '../storage/object-store.js';

const AGE_COLUMN: Json = {
  name: 'Age',
  type: 'date',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  jsonPath: '.metadata.creationTimestamp',
};

// Go's time.RFC3339 layout, fractional seconds allowed, as metav1.Time parses a date cell.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** cellForJSONValue: the cell of a non-string column, null when the value is not of its type. */
function typedCell(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      if (value === '' || value === 'null') return '<unknown>';
      if (!RFC3339.test(value) || Number.isNaN(Date.parse(value))) return '<invalid>';
      return humanDuration(now - Date.parse(value));
    }
    default:
      return null;
  }
}

/**
 * The printer of a custom resource's version. A column whose jsonPath does not parse ends the
 * columns there, as in kube-apiserver, which keeps the columns parsed before it.
 */
export function customResourcePrinter(crd: Json | undefined, version: string): TablePrinter {
  const versions = ((crd?.['spec'] as Json | undefined)?.['versions'] as Json[] | undefined) ?? [];
  const declared = (versions.find((v) => v['name'] === version)?.['additionalPrinterColumns'] as Json[] | undefined) ?? [];
  const columns: TableColumn[] = [{ name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 }];
  const paths: KubeJsonPath[] = [];
  for (const c of declared.length > 0 ? declared : [AGE_COLUMN]) {
    const jsonPath = String(c['jsonPath'] ?? '');
    try {
      paths.push(parseKubeJsonPath(`{${jsonPath}}`));
    } catch (error) {
      if (error instanceof JsonPathSyntaxError) break;
      throw error;
    }
    const description = typeof c['description'] === 'string' && c['description'] !== '' ? c['description'] : undefined;
    columns.push({
      name: String(c['name']),
      type: String(c['type'] ?? ''),
      format: String(c['format'] ?? ''),
      description: description ?? `Custom resource definition column (in JSONPath format): ${jsonPath}`,
      priority: Number(c['priority'] ?? 0),
    });
  }
  return {
    columns,
    cells(obj, now) {
      const name = (obj['metadata'] as Json | undefined)?.['name'] ?? '';
      return [
        name,
        ...paths.map((path, i) => {
          const results = path.findResults(obj);
          const first = results?.[0];
          if (first === undefined || first.length === 0) return null;
          const type = columns[i + 1]!.type;
          return type === 'string' ? printJsonPathValue(first[0]) : typedCell(type, first[0], now);
        }),
      ];
    },
  };
}
