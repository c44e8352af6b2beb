/**
 * kopf-style declarative filters, compiled to the one filter model: a {@link Predicate}.
 *
 * `kopfFilter({ labels, annotations, field, value | old/new, when })` gives a predicate that can
 * be combined with controller-runtime style predicates through `and`/`or`/`not` and runs
 * through `evaluate` like any other. All criteria are ANDed, checked in kopf's order: labels,
 * annotations, field value, field change, and `when` last (so a costly callback runs only for
 * events that passed everything else).
 *
 * Per event type (kopf's handler semantics, with the filter applying to every event type):
 * - `labels`/`annotations`: the current object (the new one of an update).
 * - `field` + `value` on an update (kopf's on.update/on.field): the field must be affected
 *   (changed, added or removed) and EITHER the old or the new value may satisfy `value`. On
 *   other events the current object is checked, as kopf's documentation describes (kopf's code
 *   also tests the missing "old" side of a creation, so its `value: ABSENT` passes every
 *   create; kindex does not copy that). `field` alone means `value: PRESENT`.
 * - `field` + `old`/`new` on an update: the field must be affected, and each given criterion is
 *   checked against its own side. kindex extends this to the other events, viewing them as
 *   transitions: a create goes from absent to the object, a delete from the object to absent, a
 *   generic event from the object to itself (no change is required outside updates).
 *
 * Stealth: an object matching no filter is invisible to kopf, and appears as created when it
 * starts to match; `stealthTransition` gives that behaviour (attached by `withStealthFilter` on
 * an event source, `stealthFilter` on a controller).
 *
 * @module
 */
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { ResourceEvent } from '../event/resource-event.js';
import type { Predicate } from '../predicate/predicate.js';
import { FilterError } from '../predicate/filter-error.js';
import { objectKeyOf } from '../internal/object-key.js';
import { ABSENT, PRESENT } from './markers.js';
import type { FilterContext } from './filter-context.js';
import { makeFilterContext } from './filter-context.js';
import { InvalidFilterError } from './invalid-filter-error.js';
import { MISSING, parseFieldPath, resolveField } from './internal/field-path.js';
import { jsonEqual } from '../resource/json-equal.js';

/** A JSON value, as a field of a Kubernetes object holds. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * A label or annotation criterion: a literal value, PRESENT, ABSENT or a value callback.
 *
 * @example
 * ```ts
 * import { kopfFilter, PRESENT, type MetaCriterion } from '@kindex/core';
 *
 * const isTeamLabel: MetaCriterion = (value) => value?.startsWith('team-') === true;
 * const owned = kopfFilter({ labels: { team: isTeamLabel, 'example.com/managed': PRESENT } });
 * ```
 */
export type MetaCriterion<R extends KubernetesObject = KubernetesObject> =
  string | typeof PRESENT | typeof ABSENT | ((value: string | undefined, ctx: FilterContext<R>) => boolean);

/**
 * A field criterion: a JSON literal (deep equality), PRESENT, ABSENT or a value callback.
 *
 * @example
 * ```ts
 * import { kopfFilter, type FieldCriterion } from '@kindex/core';
 *
 * const scaledUp: FieldCriterion = (replicas) => typeof replicas === 'number' && replicas > 3;
 * const bigDeployments = kopfFilter({ field: 'spec.replicas', value: scaledUp });
 * ```
 */
export type FieldCriterion<R extends KubernetesObject = KubernetesObject> =
  JsonValue | typeof PRESENT | typeof ABSENT | ((value: unknown, ctx: FilterContext<R>) => boolean);

/**
 * A whole-event callback (kopf's `when=`).
 *
 * @example
 * ```ts
 * import { kopfFilter, type WhenCallback } from '@kindex/core';
 *
 * const notBeingDeleted: WhenCallback = (ctx) => ctx.meta.deletionTimestamp === undefined;
 * const live = kopfFilter({ when: notBeingDeleted });
 * ```
 */
export type WhenCallback<R extends KubernetesObject = KubernetesObject> = (ctx: FilterContext<R>) => boolean;

/**
 * A field path: dotted (`spec.field`), or an array of keys for keys that contain dots.
 *
 * @example
 * ```ts
 * import { kopfFilter, type FieldPath } from '@kindex/core';
 *
 * // An array path reaches keys that contain dots, such as an annotation name.
 * const path: FieldPath = ['metadata', 'annotations', 'example.com/revision'];
 * const revisionChanged = kopfFilter({ field: path });
 * ```
 */
export type FieldPath = string | readonly string[];

/**
 * Options every kopf-style filter may have.
 *
 * @example
 * ```ts
 * import { kopfFilter, PRESENT, type KopfFilterCommon } from '@kindex/core';
 *
 * const common: KopfFilterCommon = { name: 'managedWeb', labels: { app: 'web' }, annotations: { 'example.com/managed': PRESENT } };
 * const managedWeb = kopfFilter(common);
 * ```
 */
export interface KopfFilterCommon<R extends KubernetesObject = KubernetesObject> {
  /** Name in error reports. Defaults to `'kopfFilter'`. */
  name?: string;
  /** Label criteria, all of which must hold. Defaults to none. */
  labels?: Readonly<Record<string, MetaCriterion<R>>>;
  /** Annotation criteria, all of which must hold. Defaults to none. */
  annotations?: Readonly<Record<string, MetaCriterion<R>>>;
  /** Whole-event callback, evaluated after every other criterion. Defaults to none. */
  when?: WhenCallback<R>;
}

/**
 * No field criterion: `value`, `old` and `new` need a `field`.
 *
 * @example
 * ```ts
 * import { kopfFilter, type KopfFilterCommon, type KopfNoFieldFilter } from '@kindex/core';
 *
 * // No field: only labels, annotations and `when` decide.
 * const spec: KopfFilterCommon & KopfNoFieldFilter = { labels: { app: 'web' } };
 * const web = kopfFilter(spec);
 * ```
 */
export interface KopfNoFieldFilter {
  field?: undefined;
  value?: never;
  old?: never;
  new?: never;
}

/**
 * A field checked by value: on updates, old OR new may satisfy it.
 *
 * @example
 * ```ts
 * import { kopfFilter, type KopfFieldValueFilter } from '@kindex/core';
 *
 * // Objects whose spec.mode is "active"; updates that leave spec.mode alone are dropped.
 * const spec: KopfFieldValueFilter = { field: 'spec.mode', value: 'active' };
 * const active = kopfFilter(spec);
 * ```
 */
export interface KopfFieldValueFilter<R extends KubernetesObject = KubernetesObject> {
  /** The field to check. */
  field: FieldPath;
  /** The criterion for the field's value. Defaults to `PRESENT`. */
  value?: FieldCriterion<R>;
  old?: never;
  new?: never;
}

/**
 * A field checked by change: old and new values separately. Mutually exclusive with `value`.
 *
 * @example
 * ```ts
 * import { ABSENT, kopfFilter, PRESENT, type KopfFieldChangeFilter } from '@kindex/core';
 *
 * // The moment a primary gets its spec.backup section.
 * const spec: KopfFieldChangeFilter = { field: 'spec.backup', old: ABSENT, new: PRESENT };
 * const backupEnabled = kopfFilter(spec);
 * ```
 */
export interface KopfFieldChangeFilter<R extends KubernetesObject = KubernetesObject> {
  /** The field to check. */
  field: FieldPath;
  value?: never;
  /** The criterion for the value before the change. Defaults to unchecked. */
  old?: FieldCriterion<R>;
  /** The criterion for the value after the change. Defaults to unchecked. */
  new?: FieldCriterion<R>;
}

/**
 * The options of {@link kopfFilter}. A discriminated union, so that a misspelled option and
 * `value` together with `old`/`new` are compile errors (and runtime errors for JS callers).
 *
 * @example
 * ```ts
 * import { kopfFilter, PRESENT, type KopfFilterSpec } from '@kindex/core';
 *
 * const spec: KopfFilterSpec = { labels: { app: 'web' }, field: 'spec.image', new: PRESENT };
 * const imageSet = kopfFilter(spec);
 * ```
 */
export type KopfFilterSpec<R extends KubernetesObject = KubernetesObject> = KopfFilterCommon<R> &
  (KopfNoFieldFilter | KopfFieldValueFilter<R> | KopfFieldChangeFilter<R>);

const KNOWN_OPTIONS = new Set(['name', 'labels', 'annotations', 'field', 'value', 'old', 'new', 'when']);

/** Sentinel for "criterion not given" (kopf's `None`); JSON `null` stays a literal. */
const UNSET: unique symbol = Symbol('unset');
type Compiled<R extends KubernetesObject> = FieldCriterion<R> | typeof UNSET;

/**
 * Compiles a kopf-style filter into a {@link Predicate}.
 *
 * @example
 * ```ts
 * import { ABSENT, and, generationChanged, kopfFilter, PRESENT } from '@kindex/core';
 * // kopf: @kopf.on.update('kopfexamples', field='spec.field', old=kopf.ABSENT, new=kopf.PRESENT)
 * const fieldIsAdded = kopfFilter({ field: 'spec.field', old: ABSENT, new: PRESENT });
 * const appSpecChanges = and(kopfFilter({ labels: { app: PRESENT } }), generationChanged());
 * ```
 * @throws {InvalidFilterError} for an unknown option, `value` with `old`/`new`, `value`/`old`/
 *   `new` without `field`, or a criterion of the wrong type.
 * @see stealthTransition
 */
export function kopfFilter<R extends KubernetesObject = KubernetesObject>(spec: KopfFilterSpec<R>): Predicate<R> {
  if (spec === null || typeof spec !== 'object') {
    throw new InvalidFilterError('(spec)', `expected an options object, got ${spec === null ? 'null' : typeof spec}`);
  }
  const loose = spec as Record<string, unknown>;
  for (const key of Object.keys(loose)) {
    if (!KNOWN_OPTIONS.has(key)) {
      throw new InvalidFilterError(key, `unknown option; expected one of ${[...KNOWN_OPTIONS].join(', ')}`);
    }
  }
  const name = loose['name'] === undefined ? 'kopfFilter' : String(loose['name']);
  const labels = compileMeta<R>('labels', loose['labels']);
  const annotations = compileMeta<R>('annotations', loose['annotations']);
  const value = compileCriterion<R>('value', loose['value']);
  const oldC = compileCriterion<R>('old', loose['old']);
  const newC = compileCriterion<R>('new', loose['new']);
  const hasField = loose['field'] !== undefined;
  const path = hasField ? parseFieldPath(loose['field']) : undefined;
  if (!hasField) {
    for (const [k, c] of [
      ['value', value],
      ['old', oldC],
      ['new', newC],
    ] as const) {
      if (c !== UNSET) throw new InvalidFilterError(k, 'needs a field to check');
    }
  }
  if (value !== UNSET && (oldC !== UNSET || newC !== UNSET)) {
    throw new InvalidFilterError(oldC !== UNSET ? 'old' : 'new', 'value and old/new are mutually exclusive (ambiguous together)');
  }
  const byChange = oldC !== UNSET || newC !== UNSET;
  const when = loose['when'];
  if (when !== undefined && typeof when !== 'function') {
    throw new InvalidFilterError('when', `expected a callback, got ${typeof when}`);
  }
  const whenFn = when as WhenCallback<R> | undefined;

  const judge = (event: ResourceEvent<R>): boolean => {
    // One state object per event, no closures: this runs for every event of the kind.
    const ev: Evaluation<R> = { name, event, oldV: MISSING, newV: MISSING, byField: path !== undefined, ctx: undefined };
    if (path !== undefined) {
      switch (event.type) {
        case 'update':
          ev.oldV = resolveField(event.oldObject, path);
          ev.newV = resolveField(event.object, path);
          break;
        case 'create':
          ev.newV = resolveField(event.object, path);
          break;
        case 'delete':
          ev.oldV = resolveField(event.object, path);
          break;
        default:
          ev.oldV = ev.newV = resolveField(event.object, path);
      }
    }
    const meta = event.object?.metadata;
    if (labels && !matchesMeta(labels, meta?.labels, ev)) return false;
    if (annotations && !matchesMeta(annotations, meta?.annotations, ev)) return false;
    if (path !== undefined) {
      // kopf's field_needs_change: updates that leave the field alone do not concern this filter.
      if (event.type === 'update') {
        if (jsonEqual(ev.oldV, ev.newV)) return false;
        if (!byChange) {
          // "new" first, so an "old" callback only runs when "new" did not satisfy (as kopf).
          if (!matchesValue(value, ev.newV, 'value', ev) && !matchesValue(value, ev.oldV, 'value', ev)) return false;
        }
      } else if (!byChange) {
        if (!matchesValue(value, event.type === 'delete' ? ev.oldV : ev.newV, 'value', ev)) return false;
      }
      if (byChange) {
        if (oldC !== UNSET && !matchesValue(oldC, ev.oldV, 'old', ev)) return false;
        if (newC !== UNSET && !matchesValue(newC, ev.newV, 'new', ev)) return false;
      }
    }
    if (whenFn !== undefined && !invoke(ev, 'when', whenFn, contextOf(ev), undefined)) return false;
    return true;
  };

  return Object.freeze({ name, create: judge, update: judge, delete: judge, generic: judge });
}

/** The state of one filter run over one event. */
interface Evaluation<R extends KubernetesObject> {
  readonly name: string;
  readonly event: ResourceEvent<R>;
  oldV: unknown;
  newV: unknown;
  readonly byField: boolean;
  ctx: FilterContext<R> | undefined;
}

/** The callback context, built on first use and shared by every callback of this run (as kopf). */
function contextOf<R extends KubernetesObject>(ev: Evaluation<R>): FilterContext<R> {
  if (ev.ctx === undefined) {
    const e = ev.event;
    ev.ctx = ev.byField
      ? makeFilterContext(e, orUndefined(ev.oldV), orUndefined(ev.newV))
      : makeFilterContext(e, oldObjectOf(e), newObjectOf(e));
  }
  return ev.ctx;
}

/** Runs a user callback; what it throws becomes a FilterError naming the exact option. */
function invoke<R extends KubernetesObject, A>(
  ev: Evaluation<R>,
  where: string,
  fn: (a: A, b: FilterContext<R>) => boolean,
  a: A,
  b: FilterContext<R> | undefined,
): boolean {
  try {
    return Boolean(b === undefined ? (fn as unknown as (a: A) => boolean)(a) : fn(a, b));
  } catch (err) {
    // "kopfFilter.labels.app" beats "kopfFilter" when hunting the broken callback.
    throw new FilterError(`${ev.name}.${where}`, ev.event.type, objectKeyOf(ev.event.object), { cause: err });
  }
}

/** A compiled label or annotation criterion with its option path for error reports. */
interface MetaRule<R extends KubernetesObject> {
  readonly key: string;
  readonly criterion: MetaCriterion<R>;
  readonly where: string;
}

function matchesMeta<R extends KubernetesObject>(
  rules: readonly MetaRule<R>[],
  content: Readonly<Record<string, string>> | undefined,
  ev: Evaluation<R>,
): boolean {
  for (let i = 0; i < rules.length; i++) {
    const { key, criterion, where } = rules[i]!;
    const has = content != null && Object.prototype.hasOwnProperty.call(content, key);
    if (criterion === PRESENT) {
      if (!has) return false;
    } else if (criterion === ABSENT) {
      if (has) return false;
    } else if (typeof criterion === 'function') {
      if (!invoke(ev, where, criterion, has ? content[key] : undefined, contextOf(ev))) return false;
    } else if (!has || content[key] !== criterion) {
      return false;
    }
  }
  return true;
}

function matchesValue<R extends KubernetesObject>(criterion: Compiled<R>, v: unknown, where: string, ev: Evaluation<R>): boolean {
  if (criterion === UNSET || criterion === PRESENT) return v !== MISSING;
  if (criterion === ABSENT) return v === MISSING;
  if (typeof criterion === 'function') return invoke(ev, where, criterion, orUndefined(v), contextOf(ev));
  return v !== MISSING && jsonEqual(criterion, v);
}

function compileMeta<R extends KubernetesObject>(group: string, raw: unknown): readonly MetaRule<R>[] | undefined {
  if (raw === undefined) return undefined;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new InvalidFilterError(group, `expected a map of key to criterion, got ${JSON.stringify(raw)}`);
  }
  const out: MetaRule<R>[] = [];
  for (const [key, c] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof c !== 'string' && c !== PRESENT && c !== ABSENT && typeof c !== 'function') {
      throw new InvalidFilterError(`${group}.${key}`, `expected a string, PRESENT, ABSENT or a callback, got ${show(c)}`);
    }
    out.push(Object.freeze({ key, criterion: c as MetaCriterion<R>, where: `${group}.${key}` }));
  }
  return out.length === 0 ? undefined : Object.freeze(out);
}

function compileCriterion<R extends KubernetesObject>(option: string, raw: unknown): Compiled<R> {
  if (raw === undefined) return UNSET;
  if (raw === PRESENT || raw === ABSENT || typeof raw === 'function') return raw as FieldCriterion<R>;
  if (!isJson(raw)) {
    throw new InvalidFilterError(option, `expected a JSON value, PRESENT, ABSENT or a callback, got ${show(raw)}`);
  }
  return raw;
}

function isJson(v: unknown): v is JsonValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(isJson);
  if (typeof v === 'object') {
    const proto: unknown = Object.getPrototypeOf(v);
    return (proto === Object.prototype || proto === null) && Object.values(v).every(isJson);
  }
  return false;
}

function show(v: unknown): string {
  return typeof v === 'symbol' ? v.toString() : typeof v === 'object' ? (JSON.stringify(v) ?? typeof v) : typeof v;
}

function orUndefined(v: unknown): unknown {
  return v === MISSING ? undefined : v;
}

function oldObjectOf<R extends KubernetesObject>(event: ResourceEvent<R>): R | undefined {
  return event.type === 'update' ? event.oldObject : event.type === 'create' ? undefined : event.object;
}

function newObjectOf<R extends KubernetesObject>(event: ResourceEvent<R>): R | undefined {
  return event.type === 'delete' ? undefined : event.object;
}
