// The set of fields a manager owns, as kube-apiserver keeps it in `metadata.managedFields`
// (`fieldsType: FieldsV1`): a trie whose keys are path elements — `f:name` for a map field,
// `k:{"name":"c"}` for an item of an associative list, `v:"x"` for an item of a set, `i:0` for a
// positional item — and where the key `.` marks that the node itself (not only its children) is
// owned. A leaf is written as `{}`.

/** A node of the trie: whether the path itself is in the set, and its children by path element. */
export class FieldSet {
  self = false;
  readonly children = new Map<string, FieldSet>();

  /** Parses a FieldsV1 document; unknown shapes are skipped rather than fatal (it is user input). */
  static fromFieldsV1(doc: unknown): FieldSet {
    const set = new FieldSet();
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return set;
    const entries = Object.entries(doc as Record<string, unknown>);
    // A leaf `{}` is owned itself; so is a node carrying `.`.
    if (entries.length === 0) set.self = true;
    for (const [k, v] of entries) {
      if (k === '.') set.self = true;
      else set.children.set(k, FieldSet.fromFieldsV1(v));
    }
    return set;
  }

  /** The FieldsV1 document of this set (keys sorted, as the real server writes them). */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const keys = [...this.children.keys()].sort();
    if (this.self && keys.length > 0) out['.'] = {};
    for (const k of keys) out[k] = this.children.get(k)!.toFieldsV1();
    return out;
  }

  /** The child for a path element, created when missing. */
  child(element: string): FieldSet {
    let c = this.children.get(element);
    if (c === undefined) {
      c = new FieldSet();
      this.children.set(element, c);
    }
    return c;
  }

  /** True when nothing is owned here or below. */
  isEmpty(): boolean {
    if (this.self) return false;
    for (const c of this.children.values()) if (!c.isEmpty()) return false;
    return true;
  }

  /** Every owned path, parents before children. */
  paths(prefix: readonly string[] = []): string[][] {
    const out: string[][] = [];
    if (this.self && prefix.length > 0) out.push([...prefix]);
    for (const [k, c] of this.children) out.push(...c.paths([...prefix, k]));
    return out;
  }

  /** Whether `path` itself is in the set. */
  has(path: readonly string[]): boolean {
    return this.node(path)?.self === true;
  }

  /** Whether `path` or anything below it is in the set. */
  touches(path: readonly string[]): boolean {
    const n = this.node(path);
    return n !== undefined && !n.isEmpty();
  }

  /** Adds one path. */
  add(path: readonly string[]): void {
    const n = path.reduce<FieldSet>((node, e) => node.child(e), this);
    n.self = true;
  }

  /** Removes one path (its children stay) and prunes nodes left empty. */
  remove(path: readonly string[]): void {
    if (path.length === 0) {
      this.self = false;
      return;
    }
    const [head, ...rest] = path;
    const c = this.children.get(head!);
    if (c === undefined) return;
    c.remove(rest);
    if (c.isEmpty()) this.children.delete(head!);
  }

  /** A new set holding the paths of both. */
  union(other: FieldSet): FieldSet {
    const out = this.clone();
    for (const p of other.paths()) out.add(p);
    return out;
  }

  /** A new set holding the paths of this one that `other` lacks. */
  difference(other: FieldSet): FieldSet {
    const out = this.clone();
    for (const p of other.paths()) out.remove(p);
    return out;
  }

  /** A deep copy. */
  clone(): FieldSet {
    const out = new FieldSet();
    out.self = this.self;
    for (const [k, c] of this.children) out.children.set(k, c.clone());
    return out;
  }

  /** Structural equality. */
  equals(other: FieldSet): boolean {
    return JSON.stringify(this.toFieldsV1()) === JSON.stringify(other.toFieldsV1());
  }

  private node(path: readonly string[]): FieldSet | undefined {
    return path.reduce<FieldSet | undefined>((node, e) => node?.children.get(e), this);
  }
}

/**
 * A path as kube-apiserver prints it in conflict messages: `.data.x`,
 * `.spec.containers[name="c"].image`, `.metadata.finalizers[="x/y"]`, `.spec.list[0]`.
 */
export function pathString(path: readonly string[]): string {
  let out = '';
  for (const e of path) {
    const body = e.slice(2);
    if (e.startsWith('f:')) out += `.${body}`;
    else if (e.startsWith('k:')) {
      const key = JSON.parse(body) as Record<string, unknown>;
      out += `[${Object.entries(key)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    } else if (e.startsWith('v:')) out += `[=${body}]`;
    else out += `[${body}]`;
  }
  return out;
}
