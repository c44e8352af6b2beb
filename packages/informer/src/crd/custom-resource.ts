/**
 * Custom resources from one TypeScript definition, as kube-rs's `#[derive(CustomResource)]`,
 * controller-gen's markers and fabric8's crd-generator give them: {@link customResource} takes
 * TypeBox schemas for `spec` and `status` per version and returns, from that one value, the
 * static type of the objects (`ObjectOfKind<typeof Widgets>`), their {@link ResourceKind}, the
 * structural `apiextensions.k8s.io/v1` CRD (`Widgets.crd`), and a client-side check of an object
 * against the schema and its CEL rules (`Widgets.validate`), with kube-apiserver's field paths.
 *
 * Around it:
 * - {@link KubeType}: TypeBox builders for the Kubernetes-only shapes (int-or-string, embedded
 *   resources, objects that keep unknown fields).
 * - {@link structuralSchema}: the translation of one schema, refusing what the API server would.
 * - {@link installCrds}: server-side apply of CRDs, then waiting until they are Established.
 * - {@link crdYaml} and {@link crdTypeScript}: the YAML of CRDs, and TypeScript types from a
 *   third-party CRD (the `kindex crd generate` and `kindex crd types` commands).
 *
 * Defaults, enums, formats, bounds, `required`, nullable, CEL rules (`x-kubernetes-validations`,
 * with `messageExpression` and `oldSelf` transition rules) and list types are TypeBox options, so
 * the static type and the schema cannot drift: `Type.Integer({ minimum: 1, default: 1 })`.
 *
 * Caveats: a field with a `default` is left out of `required` in the CRD (the server fills it
 * in), but stays required in the static type unless it is `Type.Optional`: the type describes
 * the objects you read back, which always have it; write them with the field set. The API server
 * prunes unknown fields rather than refusing them, so `validate` does not report them either.
 *
 * @module
 */
import { ResourceID, defaultCustomObject, validateCustomObject, type KubernetesObject } from '@kindex/core';
import { deepFreeze, isJsonObject, pruneCustomObject, validationRuleErrors } from '@kindex/core/internal';
import type { Static, TSchema } from 'typebox';
import { resourceKind, type ResourceKind } from '../kind/resource-kind.js';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion, PrinterColumn, ScaleSubresource } from './crd-manifest.js';
import { CustomResourceValidationError, type FieldViolation } from './custom-resource-validation-error.js';
import type { JsonSchemaProps, ValidationRule } from './json-schema-props.js';
import { structuralSchema } from './structural-schema.js';

/**
 * One version of a {@link customResource}: the schemas of `spec` and `status`, and how the
 * version is served.
 *
 * @example
 * ```ts
 * import Type from 'typebox';
 * import type { CustomResourceVersion } from '@kindex/informer';
 *
 * const v1 = {
 *   spec: Type.Object({ replicas: Type.Integer({ minimum: 1 }) }),
 *   status: Type.Object({ ready: Type.Optional(Type.Boolean()) }),
 *   printerColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
 * } satisfies CustomResourceVersion;
 * ```
 */
export interface CustomResourceVersion<Spec extends TSchema = TSchema, Status extends TSchema = TSchema> {
  /** The schema of `spec`, which objects must have. */
  readonly spec: Spec;
  /** The schema of `status`. Defaults to none (no `status` field). */
  readonly status?: Status;
  /** Whether the API server serves this version. Defaults to true. */
  readonly served?: boolean;
  /** Whether objects are stored in this version; exactly one version has it. Defaults to true when there is one version. */
  readonly storage?: boolean;
  /** Marks the version deprecated; clients get `deprecationWarning`. Defaults to false. */
  readonly deprecated?: boolean;
  readonly deprecationWarning?: string;
  /** CEL rules on the whole object (`self.spec`, `self.metadata.name`). Defaults to none. */
  readonly validations?: readonly ValidationRule[];
  /** Columns of `kubectl get`. Defaults to the definition's `printerColumns`. */
  readonly printerColumns?: readonly PrinterColumn[];
  /** Defaults to the definition's `subresources`. */
  readonly subresources?: CustomResourceSubresources;
}

/**
 * The status and scale subresources of a custom resource.
 *
 * @example
 * ```ts
 * import type { CustomResourceSubresources } from '@kindex/informer';
 *
 * const subresources: CustomResourceSubresources = {
 *   status: true,
 *   scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
 * };
 * ```
 */
export interface CustomResourceSubresources {
  /** `/status`: writes to the object leave status alone, and the reverse. Defaults to true when the version has a status schema. */
  readonly status?: boolean;
  /** `/scale`. Defaults to none. */
  readonly scale?: ScaleSubresource;
}

/**
 * What {@link customResource} takes: the names, scope and versions of one CRD.
 *
 * @example
 * ```ts
 * import Type from 'typebox';
 * import { customResource, type CustomResourceOptions } from '@kindex/informer';
 *
 * const options = {
 *   group: 'example.com', kind: 'Widget', plural: 'widgets', shortNames: ['wd'], categories: ['all'],
 *   versions: { v1: { spec: Type.Object({ size: Type.Integer() }) } },
 * } satisfies CustomResourceOptions;
 * const Widgets = customResource(options);
 * ```
 */
export interface CustomResourceOptions<
  V extends Readonly<Record<string, CustomResourceVersion>> = Readonly<Record<string, CustomResourceVersion>>,
> {
  readonly group: string;
  /** CamelCase kind (`Widget`). */
  readonly kind: string;
  /** Lower-case plural used in URLs (`widgets`). */
  readonly plural: string;
  /** Defaults to the lower-cased kind. */
  readonly singular?: string;
  /** Defaults to `<kind>List`. */
  readonly listKind?: string;
  /** Defaults to `Namespaced`. */
  readonly scope?: 'Namespaced' | 'Cluster';
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  /** Versions by name (`v1`, `v1beta1`); in the CRD in the order given. */
  readonly versions: V;
  /** Columns of `kubectl get` for every version that names none. Defaults to none. */
  readonly printerColumns?: readonly PrinterColumn[];
  /** Subresources of every version that names none. Defaults to status when a version has a status schema. */
  readonly subresources?: CustomResourceSubresources;
  /** Labels and annotations of the CRD object. Defaults to none. */
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/**
 * The objects of one version of a custom resource: `spec` (and `status`) typed from its schemas.
 *
 * @example
 * ```ts
 * import Type from 'typebox';
 * import type { CustomObject } from '@kindex/informer';
 *
 * const v1 = { spec: Type.Object({ size: Type.Integer() }) };
 * const widget: CustomObject<typeof v1> = { metadata: { name: 'w' }, spec: { size: 3 } };
 * ```
 */
export type CustomObject<V extends CustomResourceVersion> = KubernetesObject & { spec: Static<V['spec']> } & (V extends {
    readonly status: infer S extends TSchema;
  }
    ? { status?: Static<S> }
    : unknown);

/**
 * The name of the version whose `storage` is `true`, or of the only version.
 *
 * @example
 * ```ts
 * import Type from 'typebox';
 * import type { StorageVersionOf } from '@kindex/informer';
 *
 * const versions = { v1beta1: { spec: Type.Object({}) }, v1: { spec: Type.Object({}), storage: true as const } };
 * const stored: StorageVersionOf<typeof versions> = 'v1';
 * ```
 */
export type StorageVersionOf<V> = {
  [K in keyof V]: V[K] extends { readonly storage: true } ? K : never;
}[keyof V] extends infer S
  ? [S] extends [never]
    ? keyof V
    : Extract<S, keyof V>
  : never;

/**
 * Options of {@link CustomResource.validate}.
 *
 * @example
 * ```ts
 * import type { ValidateOptions } from '@kindex/informer';
 *
 * declare const before: unknown;
 * const options: ValidateOptions = { old: before };
 * ```
 */
export interface ValidateOptions {
  /** The object before the update: `oldSelf` transition rules compare with it. Defaults to none (a create). */
  readonly old?: unknown;
  /**
   * The object is a server-side apply configuration holding only the fields its manager owns:
   * leave out `required` and CEL rules, which hold for the merged object. Defaults to false.
   */
  readonly partial?: boolean;
}

/**
 * A custom resource defined in TypeScript: the {@link ResourceKind} of its storage version, the
 * kinds of every version, its CRD, and client-side validation.
 *
 * @example
 * ```ts
 * import Type from 'typebox';
 * import { customResource, type ObjectOfKind } from '@kindex/informer';
 *
 * const Widgets = customResource({
 *   group: 'example.com', kind: 'Widget', plural: 'widgets',
 *   versions: { v1: { spec: Type.Object({ replicas: Type.Integer({ minimum: 1 }) }) } },
 * });
 * type Widget = ObjectOfKind<typeof Widgets>;
 * const problems = Widgets.validate({ apiVersion: 'example.com/v1', kind: 'Widget', spec: { replicas: 0 } });
 * // [{ field: 'spec.replicas', message: 'must be >= 1' }]
 * ```
 */
export interface CustomResource<
  V extends Readonly<Record<string, CustomResourceVersion>> = Readonly<Record<string, CustomResourceVersion>>,
> extends ResourceKind<CustomObject<V[StorageVersionOf<V>]>> {
  /** The `apiextensions.k8s.io/v1` CRD, a fresh copy each read. */
  readonly crd: CustomResourceDefinition;
  /** The kind of each version, typed by that version's schemas. */
  readonly kinds: { readonly [K in keyof V]: ResourceKind<CustomObject<V[K]>> };
  /** Every violation of the schema and CEL rules of the object's version (by `apiVersion`, else the storage version). */
  validate(object: unknown, options?: ValidateOptions): readonly FieldViolation[];
  /** Throws {@link CustomResourceValidationError} listing the violations, if any. */
  assertValid(object: unknown, options?: ValidateOptions): void;
}

/**
 * Defines a custom resource from TypeBox schemas; see the module doc.
 *
 * @throws {TypeError} when names, versions or columns are wrong, naming the option and the fix.
 * @throws {NonStructuralSchemaError} when a schema has no structural form, or a CEL rule does not
 * compile, naming the node.
 *
 * Warns (`process.emitWarning`, type `KindexRuleCostWarning`, code `KINDEX_RULE_COST`) when a
 * rule's or messageExpression's estimated cost is over kube-apiserver's budget, naming the field,
 * the rule, the cost, the limit and the fix (maxLength, maxItems, maxProperties): installing the
 * CRD would fail. A warning rather than a throw: the definition still types and validates objects.
 *
 * @example
 * ```ts
 * import Type from 'typebox';
 * import { customResource } from '@kindex/informer';
 *
 * export const Widgets = customResource({
 *   group: 'example.com',
 *   kind: 'Widget',
 *   plural: 'widgets',
 *   shortNames: ['wd'],
 *   versions: {
 *     v1: {
 *       spec: Type.Object(
 *         { replicas: Type.Integer({ minimum: 1, default: 1 }), maxReplicas: Type.Integer() },
 *         { 'x-kubernetes-validations': [{ rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas' }] },
 *       ),
 *       status: Type.Object({ replicas: Type.Optional(Type.Integer()) }),
 *       subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
 *       printerColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
 *     },
 *   },
 * });
 * ```
 */
export function customResource<const V extends Readonly<Record<string, CustomResourceVersion>>>(
  options: CustomResourceOptions<V>,
): CustomResource<V> {
  checkNames(options);
  const entries = Object.entries(options.versions);
  if (entries.length === 0)
    throw new TypeError(`customResource ${options.kind}: versions is empty; add one, e.g. versions: { v1: { spec: Type.Object({...}) } }`);
  const storage = entries.filter(([, v]) => v.storage === true || (entries.length === 1 && v.storage === undefined));
  if (storage.length !== 1) {
    throw new TypeError(
      `customResource ${options.kind}: exactly one version must have storage: true, found ${storage.length === 0 ? 'none' : storage.map(([n]) => n).join(', ')}; set it on the version objects are stored in`,
    );
  }
  const versions: CustomResourceDefinitionVersion[] = entries.map(([name, v]) => crdVersion(options, name, v, v === storage[0]![1]));
  for (const v of versions) warnRuleCosts(`customResource ${options.kind} ${v.name}`, v.schema.openAPIV3Schema);
  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${options.plural}.${options.group}`,
      ...(options.labels ? { labels: { ...options.labels } } : {}),
      ...(options.annotations ? { annotations: { ...options.annotations } } : {}),
    },
    spec: {
      group: options.group,
      scope: options.scope ?? 'Namespaced',
      names: {
        kind: options.kind,
        listKind: options.listKind ?? `${options.kind}List`,
        plural: options.plural,
        singular: options.singular ?? options.kind.toLowerCase(),
        ...(options.shortNames?.length ? { shortNames: [...options.shortNames] } : {}),
        ...(options.categories?.length ? { categories: [...options.categories] } : {}),
      },
      versions,
    },
  };
  const namespaced = crd.spec.scope === 'Namespaced';
  const kindOf = (version: string): ResourceKind =>
    resourceKind({ group: options.group, version, kind: options.kind, plural: options.plural, namespaced });
  const kinds = Object.freeze(Object.fromEntries(entries.map(([name]) => [name, kindOf(name)])));
  const schemas = new Map(versions.map((v) => [`${options.group}/${v.name}`, v.schema.openAPIV3Schema]));
  const storageName = storage[0]![0];
  const frozenCrd = deepFreeze(crd);

  const validate = (object: unknown, validateOptions: ValidateOptions = {}): readonly FieldViolation[] => {
    const apiVersion = (object as KubernetesObject | null)?.apiVersion;
    const schema = schemas.get(apiVersion ?? `${options.group}/${storageName}`);
    if (schema === undefined) {
      return [{ field: 'apiVersion', message: `must be one of ${[...schemas.keys()].join(', ')}, got ${JSON.stringify(apiVersion)}` }];
    }
    // The server prunes, defaults, then validates: so does the client, on a copy.
    const decoded: unknown = structuredClone(object);
    if (isJsonObject(decoded)) pruneCustomObject(schema, decoded);
    defaultCustomObject(schema, decoded);
    const problems = validateCustomObject(schema, decoded, { old: validateOptions.old, partial: validateOptions.partial });
    return problems.map(({ field, summary }) => ({ field, message: summary }));
  };
  const resource: Omit<CustomResource, '__resource'> = {
    ...(kindOf(storageName) as Omit<ResourceKind, '__resource'>),
    get crd() {
      return structuredClone<CustomResourceDefinition>(frozenCrd);
    },
    kinds: kinds as CustomResource['kinds'],
    validate,
    assertValid(object, validateOptions) {
      const violations = validate(object, validateOptions);
      if (violations.length === 0) return;
      const metadata = (object as KubernetesObject | null)?.metadata;
      const id = metadata?.name ? ResourceID.of(metadata.name, metadata.namespace) : undefined;
      throw new CustomResourceValidationError(`${options.group}/${storageName}/${options.kind}`, id, violations);
    },
  };
  return Object.freeze(resource) as unknown as CustomResource<V>;
}

/**
 * Warns, at definition time, about each `x-kubernetes-validations` rule or messageExpression
 * whose estimated cost is above kube-apiserver's static budget: installing the CRD would fail
 * with a 422 (the embedded API server refuses it with the same estimate). A warning, not a
 * throw: the definition still types objects and validates them client-side, and the fix is in
 * the schema.
 */
function warnRuleCosts(subject: string, schema: JsonSchemaProps): void {
  const warned = new Set<string>();
  // Each expression over the limit first, then those the CRD version's total is over the limit with.
  for (const { field, cost } of validationRuleErrors(schema, 'openAPIV3Schema').cost) {
    if (cost === undefined || warned.has(field)) continue;
    warned.add(field);
    if (cost.expression === '') {
      // The version's total, whose share no single rule is large enough to name (each under 1%).
      if (warned.size > 1) continue;
      process.emitWarning(
        `${subject}: kube-apiserver will refuse this CRD: its x-kubernetes-validations rules have an estimated total cost of ${cost.estimated.toLocaleString('en-US')}, over the limit of ${cost.limit.toLocaleString('en-US')} for a CRD version; bound what they read in the schema: maxLength on strings, maxItems on arrays, maxProperties on maps`,
        { type: 'KindexRuleCostWarning', code: 'KINDEX_RULE_COST' },
      );
      continue;
    }
    const dot = field.lastIndexOf('.');
    const over =
      cost.estimated > cost.limit
        ? `over the limit of ${cost.limit.toLocaleString('en-US')} for one expression`
        : `and with the version's other rules over the limit of ${cost.limit.toLocaleString('en-US')} for a CRD version`;
    process.emitWarning(
      `${subject}: kube-apiserver will refuse this CRD: the ${field.slice(dot + 1)} ${JSON.stringify(cost.expression)} at ${field.slice(0, dot)} has an estimated cost of ${cost.estimated.toLocaleString('en-US')}, ${over}; bound what it reads in the schema: maxLength on strings, maxItems on arrays, maxProperties on maps`,
      { type: 'KindexRuleCostWarning', code: 'KINDEX_RULE_COST' },
    );
  }
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function checkNames(options: CustomResourceOptions<Readonly<Record<string, CustomResourceVersion>>>): void {
  const owner = `customResource ${String(options.kind)}`;
  if (typeof options.group !== 'string' || !options.group.includes('.') || !options.group.split('.').every((p) => DNS_LABEL.test(p))) {
    throw new TypeError(`${owner}: group ${JSON.stringify(options.group)} must be a lower-case DNS subdomain with a dot (example.com)`);
  }
  if (typeof options.kind !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(options.kind)) {
    throw new TypeError(`${owner}: kind must be CamelCase starting with a capital letter (Widget), got ${JSON.stringify(options.kind)}`);
  }
  for (const field of ['plural', 'singular'] as const) {
    const value = options[field];
    if (value !== undefined && (typeof value !== 'string' || !DNS_LABEL.test(value))) {
      throw new TypeError(`${owner}: ${field} must be a lower-case DNS label (widgets), got ${JSON.stringify(value)}`);
    }
  }
  if (options.plural === undefined) throw new TypeError(`${owner}: plural is required (the lower-case name in URLs, e.g. widgets)`);
  for (const field of ['shortNames', 'categories'] as const) {
    for (const value of options[field] ?? []) {
      if (!DNS_LABEL.test(value)) throw new TypeError(`${owner}: ${field} entry ${JSON.stringify(value)} must be a lower-case DNS label`);
    }
  }
  if (options.scope !== undefined && options.scope !== 'Namespaced' && options.scope !== 'Cluster') {
    throw new TypeError(`${owner}: scope must be 'Namespaced' or 'Cluster', got ${JSON.stringify(options.scope)}`);
  }
  for (const name of Object.keys(options.versions ?? {})) {
    if (!/^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/.test(name)) {
      throw new TypeError(`${owner}: version name ${JSON.stringify(name)} must look like v1, v2beta1 or v1alpha2`);
    }
  }
}

function crdVersion(
  options: CustomResourceOptions<Readonly<Record<string, CustomResourceVersion>>>,
  name: string,
  v: CustomResourceVersion,
  storage: boolean,
): CustomResourceDefinitionVersion {
  const subject = `customResource ${options.kind} ${name}`;
  if (v.spec === undefined) throw new TypeError(`${subject}: spec is required (the TypeBox schema of spec, e.g. Type.Object({...}))`);
  const properties: Record<string, unknown> = {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: v.spec,
  };
  if (v.status !== undefined) properties.status = v.status;
  const root: Record<string, unknown> = { type: 'object', required: ['spec'], properties };
  if (v.validations?.length) root['x-kubernetes-validations'] = v.validations;
  const openAPIV3Schema = structuralSchema(root, subject);
  const subresources = v.subresources ?? options.subresources ?? {};
  const status = subresources.status ?? v.status !== undefined;
  if (status && v.status === undefined)
    throw new TypeError(`${subject}: the status subresource needs a status schema; add status: Type.Object({...})`);
  const columns = v.printerColumns ?? options.printerColumns;
  for (const [i, column] of (columns ?? []).entries()) {
    if (!column.jsonPath?.startsWith('.'))
      throw new TypeError(
        `${subject}: printerColumns[${i}].jsonPath must start with '.' (.spec.replicas), got ${JSON.stringify(column.jsonPath)}`,
      );
    if (!['integer', 'number', 'string', 'boolean', 'date'].includes(column.type)) {
      throw new TypeError(
        `${subject}: printerColumns[${i}].type must be integer, number, string, boolean or date, got ${JSON.stringify(column.type)}`,
      );
    }
  }
  const scale = subresources.scale;
  if (scale) {
    const replicas = scale.specReplicasPath?.match(/^\.spec\.(.+)$/)?.[1];
    const field = replicas ? openAPIV3Schema.properties?.spec?.properties?.[replicas] : undefined;
    if (field?.type !== 'integer') {
      throw new TypeError(
        `${subject}: scale.specReplicasPath ${JSON.stringify(scale.specReplicasPath)} must name an integer field under .spec (.spec.replicas)`,
      );
    }
    if (!scale.statusReplicasPath?.startsWith('.status.'))
      throw new TypeError(`${subject}: scale.statusReplicasPath must be under .status (.status.replicas)`);
  }
  return {
    name,
    served: v.served ?? true,
    storage,
    ...(v.deprecated ? { deprecated: true } : {}),
    ...(v.deprecationWarning ? { deprecationWarning: v.deprecationWarning } : {}),
    schema: { openAPIV3Schema },
    ...(status || scale ? { subresources: { ...(status ? { status: {} } : {}), ...(scale ? { scale: { ...scale } } : {}) } } : {}),
    ...(columns?.length ? { additionalPrinterColumns: columns.map((c) => ({ ...c })) } : {}),
  };
}
