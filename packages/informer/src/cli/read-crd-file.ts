/**
 * Reads the CustomResourceDefinitions of a YAML file for `kindex crd types`, pointing at the file,
 * line and column of whatever is wrong: a YAML syntax error, a document that is not a CRD, a CRD
 * without a field the types are made from.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { LineCounter, isMap, isSeq, parseAllDocuments, type Document, type Node } from 'yaml';
import type { CustomResourceDefinition } from '../crd/crd-manifest.js';

/** What is wrong with the YAML file, at `file:line:column`; `kindex` prints it as one line. */
export class CrdFileError extends Error {
  override readonly name = 'CrdFileError';
}

/** The fields `crdTypeScript` builds from, each a path into the document and what it must be. */
const REQUIRED: readonly { path: readonly string[]; is: 'string' | 'list' }[] = [
  { path: ['spec', 'group'], is: 'string' },
  { path: ['spec', 'names', 'kind'], is: 'string' },
  { path: ['spec', 'names', 'plural'], is: 'string' },
  { path: ['spec', 'versions'], is: 'list' },
];

/**
 * The CRDs in `file`, in order. Other documents are skipped with a note through `note` (a file of
 * CRDs and other objects is common: an operator's install bundle); a file without any CRD, a
 * YAML error, or a CRD missing `spec.group`, `spec.names.kind`, `spec.names.plural` or
 * `spec.versions[].name` throws a CrdFileError.
 */
export function readCrdFile(file: string, note: (line: string) => void): CustomResourceDefinition[] {
  const text = readFileSync(file, 'utf8');
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter, prettyErrors: false });
  const at = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `${file}:${line}:${col}`;
  };
  const crds: CustomResourceDefinition[] = [];
  const skipped: string[] = [];
  for (const [i, document] of (Array.isArray(documents) ? documents : [documents]).entries()) {
    const error = document.errors[0];
    if (error !== undefined) throw new CrdFileError(`${at(error.pos[0])}: YAML syntax error: ${error.message.split('\n')[0]}`);
    if (document.contents === null) continue; // an empty document, as after a trailing ---
    const where = `document ${i + 1}`;
    if (!isMap(document.contents)) {
      skipped.push(`${at(startOf(document.contents))} (${where} is not a mapping)`);
      continue;
    }
    const kind: unknown = document.get('kind');
    if (kind !== 'CustomResourceDefinition') {
      skipped.push(`${at(startOf(document.contents))} (${where}: ${typeof kind === 'string' ? `kind ${kind}` : 'no kind'})`);
      continue;
    }
    checkFields(document, where, at);
    crds.push(document.toJS() as CustomResourceDefinition);
  }
  if (crds.length === 0) {
    throw new CrdFileError(
      `${file} holds no CustomResourceDefinition${skipped.length ? `: ${skipped.join(', ')}` : ' (it is empty)'}; pass a file of apiextensions.k8s.io/v1 CRDs`,
    );
  }
  if (skipped.length > 0) note(`kindex: skipped what is not a CustomResourceDefinition: ${skipped.join(', ')}`);
  return crds;
}

function checkFields(document: Document.Parsed, where: string, at: (offset: number) => string): void {
  const name = document.getIn(['metadata', 'name']);
  const what = `${where} (CustomResourceDefinition ${typeof name === 'string' ? name : 'without metadata.name'})`;
  for (const { path, is } of REQUIRED) {
    const node = document.getIn(path, true) as Node | undefined;
    const value: unknown = document.getIn(path);
    const ok = is === 'string' ? typeof value === 'string' && value !== '' : isSeq(node) && node.items.length > 0;
    if (!ok) {
      const field = path.join('.');
      const position = node !== undefined ? startOf(node) : startOf(closest(document, path));
      throw new CrdFileError(
        `${at(position)}: ${what}: ${field} ${node === undefined ? 'is missing' : `must be ${is === 'string' ? 'a non-empty string' : 'a non-empty list'}`}`,
      );
    }
  }
  const versions = document.getIn(['spec', 'versions'], true);
  for (const [j, version] of (isSeq(versions) ? versions.items : []).entries()) {
    const versionName = isMap(version) ? version.get('name') : undefined;
    if (typeof versionName !== 'string' || versionName === '') {
      throw new CrdFileError(`${at(startOf(version))}: ${what}: spec.versions[${j}].name is missing`);
    }
  }
}

/** The deepest node along `path` that exists (the document's root at worst). */
function closest(document: Document.Parsed, path: readonly string[]): Node {
  for (let n = path.length - 1; n > 0; n--) {
    const node = document.getIn(path.slice(0, n), true);
    if (node !== undefined && node !== null && typeof node === 'object') return node as Node;
  }
  return document.contents as Node;
}

function startOf(node: unknown): number {
  return (node as Node | null)?.range?.[0] ?? 0;
}
