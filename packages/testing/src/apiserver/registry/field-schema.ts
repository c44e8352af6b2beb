// How server-side apply sees the shape of an object: which lists are associative (items owned by
// key), which are sets (items owned by value) and which are atomic (owned whole), and which maps
// are atomic. Built-in kinds follow the list types of the Kubernetes Go types (containers by name,
// container ports by containerPort+protocol, ...); custom resources follow their CRD schema
// (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`), where a list
// without a list type is atomic. `metadata` is ObjectMeta for every kind.

import type { Json } from '../storage/object-store.js';

/** How the items of a list are owned. */
export type ListType = 'atomic' | 'set' | 'map';

/** The shape of one node of an object, as far as field ownership needs it. */
export interface FieldSchema {
  readonly listType: ListType;
  /** The key fields of an associative list (`listType` 'map'). */
  readonly listKeys: readonly string[];
  /** Values a missing key field takes, as the server would default it (ports: protocol TCP). */
  readonly keyDefaults: Readonly<Record<string, unknown>>;
  /** A map or struct owned as one value. */
  readonly atomic: boolean;
  child(name: string): FieldSchema;
  items(): FieldSchema;
}

// Associative lists of the built-in Go types, by field name; everything else is atomic.
const BUILTIN_LIST_KEYS: Record<string, string[]> = {
  containers: ['name'],
  initContainers: ['name'],
  ephemeralContainers: ['name'],
  env: ['name'],
  volumes: ['name'],
  volumeMounts: ['mountPath'],
  volumeDevices: ['devicePath'],
  imagePullSecrets: ['name'],
  conditions: ['type'],
  hostAliases: ['ip'],
  topologySpreadConstraints: ['topologyKey', 'whenUnsatisfiable'],
};

const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

const NO_DEFAULTS: Readonly<Record<string, unknown>> = {};

/** ObjectMeta and the built-in kinds, navigated by field names. */
class BuiltinSchema implements FieldSchema {
  readonly listType: ListType;
  readonly listKeys: readonly string[];
  readonly keyDefaults: Readonly<Record<string, unknown>>;
  readonly atomic: boolean;

  constructor(
    private readonly typeId: string,
    private readonly path: readonly string[],
  ) {
    const name = path[path.length - 1] ?? '';
    const parent = path[path.length - 2];
    let keys: string[] | undefined;
    let defaults = NO_DEFAULTS;
    if (name === 'ports' && path.some((p) => CONTAINER_LISTS.has(p))) {
      keys = ['containerPort', 'protocol'];
      defaults = { protocol: 'TCP' };
    } else if (name === 'ports' && typeId === '/services' && parent === 'spec') {
      keys = ['port', 'protocol'];
      defaults = { protocol: 'TCP' };
    } else if (name === 'ownerReferences' && parent === 'metadata') {
      keys = ['uid'];
    } else {
      keys = BUILTIN_LIST_KEYS[name];
    }
    const isSet = name === 'finalizers' && parent === 'metadata';
    this.listType = isSet ? 'set' : keys !== undefined ? 'map' : 'atomic';
    this.listKeys = keys ?? [];
    this.keyDefaults = defaults;
    // Selectors of Services are `+mapType=atomic` in k8s.io/api.
    this.atomic = typeId === '/services' && name === 'selector' && parent === 'spec';
  }

  child(name: string): FieldSchema {
    return new BuiltinSchema(this.typeId, [...this.path, name]);
  }

  items(): FieldSchema {
    // Items keep the list's field name in the path, so that `ports` inside a container is known.
    return new BuiltinSchema(this.typeId, [...this.path, '[]']);
  }
}

/** A node of a CRD's openAPIV3Schema (absent: untyped, lists atomic and maps granular). */
class StructuralSchema implements FieldSchema {
  readonly listType: ListType;
  readonly listKeys: readonly string[];
  readonly keyDefaults: Readonly<Record<string, unknown>> = NO_DEFAULTS;
  readonly atomic: boolean;

  constructor(private readonly node: Json | undefined) {
    const type = node?.['x-kubernetes-list-type'];
    const keys = node?.['x-kubernetes-list-map-keys'];
    this.listType = type === 'set' ? 'set' : type === 'map' && Array.isArray(keys) && keys.length > 0 ? 'map' : 'atomic';
    this.listKeys = this.listType === 'map' ? (keys as string[]) : [];
    this.atomic = node?.['x-kubernetes-map-type'] === 'atomic';
  }

  child(name: string): FieldSchema {
    const props = this.node?.['properties'] as Record<string, Json> | undefined;
    const additional = this.node?.['additionalProperties'];
    const sub = props?.[name] ?? (additional !== null && typeof additional === 'object' ? (additional as Json) : undefined);
    return new StructuralSchema(sub);
  }

  items(): FieldSchema {
    const items = this.node?.['items'];
    return new StructuralSchema(items !== null && typeof items === 'object' && !Array.isArray(items) ? (items as Json) : undefined);
  }
}

/** The root of a custom resource: ObjectMeta for `metadata`, the CRD schema for the rest. */
class CustomRootSchema extends StructuralSchema {
  constructor(
    node: Json | undefined,
    private readonly typeId: string,
  ) {
    super(node);
  }

  override child(name: string): FieldSchema {
    if (name === 'metadata') return new BuiltinSchema(this.typeId, ['metadata']);
    return super.child(name);
  }
}

/** The ownership shape of objects of a type (`schema`: the CRD version's openAPIV3Schema, if any). */
export function fieldSchemaOf(typeId: string, custom: boolean, schema: Json | undefined): FieldSchema {
  return custom ? new CustomRootSchema(schema, typeId) : new BuiltinSchema(typeId, []);
}

/** The path element (`k:{...}`) of an item of an associative list; key fields sorted by name. */
export function itemKey(item: unknown, schema: FieldSchema): string | undefined {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
  const key: Record<string, unknown> = {};
  for (const k of [...schema.listKeys].sort()) {
    const v = (item as Json)[k] ?? schema.keyDefaults[k];
    if (v === undefined) return undefined;
    key[k] = v;
  }
  return `k:${JSON.stringify(key)}`;
}
