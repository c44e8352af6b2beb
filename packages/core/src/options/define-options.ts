/**
 * One declaration per options object: its accepted keys and the checks of their values, as a
 * TypeBox schema. The interface users read (and TypeDoc shows) stays a plain TypeScript interface
 * with each option's TSDoc; the schema's properties are typed against it, so an option added to one
 * and not the other is a compile error. From the schema come the unknown-key check (with the
 * closest key suggested) and the value checks, which throw one {@link InvalidOptionError} naming the
 * object, the key, the value and the fix.
 *
 * Checks run where options are given (constructors, builders), never per event: the schema is
 * compiled once, on the first check, and a valid object costs one compiled check.
 *
 * @module
 */
import Type, { type TObject, type TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import type { TLocalizedValidationError } from 'typebox/error';
import { InvalidOptionError } from './invalid-option-error.js';
import { rejectUnknownOptions, type OptionKeys, type OptionKeysOf } from './reject-unknown-options.js';

/**
 * The schema of each key of the options type `T`: every key of `T`, and no other (an option
 * missing from the schema, or a key the type lacks, is a compile error).
 *
 * @example
 * ```ts
 * import { Type } from 'typebox';
 * import type { OptionSchemas } from '@kindex/core/internal';
 *
 * interface RetryOptions { readonly attempts?: number }
 * const schemas: OptionSchemas<RetryOptions> = { attempts: Type.Optional(Type.Integer({ minimum: 1 })) };
 * ```
 */
export type OptionSchemas<T> = { readonly [K in keyof Required<T>]-?: TSchema };

/**
 * An options object declared once, by {@link defineOptions}: its name, its schema, the keys it
 * accepts and its check.
 *
 * @example
 * ```ts
 * import { defineOptions, type OptionsDefinition } from '@kindex/core/internal';
 * import { Type } from 'typebox';
 *
 * interface PoolOptions { readonly size?: number }
 * const POOL_OPTIONS: OptionsDefinition<PoolOptions> = defineOptions<PoolOptions>('Pool options', {
 *   size: Type.Optional(Type.Integer({ minimum: 1, description: 'a whole number of connections, 1 or more' })),
 * });
 * POOL_OPTIONS.check({ size: 4 });
 * ```
 */
export interface OptionsDefinition<T> {
  /** The object as messages name it: `WorkQueue options`. */
  readonly name: string;
  /** The schema of each key, to build a larger options object from this one (`{ ...X.properties, more }`). */
  readonly properties: OptionSchemas<T>;
  /** The TypeBox schema of the object (each key optional or not as in `T`). */
  readonly schema: TObject;
  /**
   * The accepted keys, nested objects' own included, as {@link rejectUnknownOptions} takes them
   * (and as a larger options object's key list spreads them).
   */
  readonly keys: OptionKeysOf<T>;
  /**
   * Throws when `options` holds an unknown key ({@link UnknownOptionError}) or a value its schema
   * refuses ({@link InvalidOptionError}); `undefined` passes. Takes `unknown`: options of a generic
   * receiver (`PollingEventSourceOptions<R>`) are checked by one definition for every `R`.
   *
   * @param as - The object as the message names it, when it is not {@link OptionsDefinition.name}
   *   (a subclass's own name: `PriorityWorkQueue options`).
   */
  check(options: unknown, as?: string): void;
}

/**
 * Declares an options object: `T` is the interface users read; `properties` gives one TypeBox
 * schema per key of `T`. Put the rule of a value in its schema (`minimum`, `exclusiveMinimum`,
 * `enum`...) and, in `description`, the value wanted as the fix should say it ("a positive number
 * of milliseconds"). A key whose value is a class instance or a callback the schema cannot
 * describe takes `Type.Unknown()` and keeps its own check.
 *
 * @param name - The object as messages should name it: `WorkQueue options`.
 * @throws nothing itself; the returned `check` throws {@link InvalidOptionError}.
 *
 * @example
 * ```ts
 * import { InvalidOptionError } from '@kindex/core';
 * import { defineOptions } from '@kindex/core/internal';
 * import { Type } from 'typebox';
 *
 * interface PoolOptions { readonly size?: number; readonly name?: string }
 * const POOL_OPTIONS = defineOptions<PoolOptions>('Pool options', {
 *   size: Type.Optional(Type.Integer({ minimum: 1, description: 'a whole number of connections, 1 or more' })),
 *   name: Type.Optional(Type.String()),
 * });
 * try {
 *   POOL_OPTIONS.check({ size: 0 });
 * } catch (error) {
 *   // Pool options.size = 0: must be >= 1. Fix: set size to a whole number of connections, 1 or more, or leave it out
 *   if (error instanceof InvalidOptionError) console.error(error.message);
 * }
 * ```
 */
export function defineOptions<T>(name: string, properties: OptionSchemas<T>): OptionsDefinition<T> {
  const schema = Type.Object(properties);
  const keys = keysOf(schema) as OptionKeysOf<T>;
  let validator: Validator | undefined;
  return {
    name,
    properties,
    schema,
    keys,
    check(options: unknown, as: string = name): void {
      if (options === undefined) return;
      rejectUnknownOptions(as, options, keys);
      validator ??= Compile(schema);
      if (validator.Check(options)) return;
      throw invalidOption(as, schema, options, validator);
    },
  };
}

/** The accepted keys of an object schema, descending into nested object schemas. */
function keysOf(schema: TObject): OptionKeys {
  const keys: Record<string, true | OptionKeys> = {};
  for (const [key, property] of Object.entries(schema.properties)) {
    keys[key] = hasCheckedKeys(property) ? keysOf(property) : true;
  }
  return keys;
}

function isObjectSchema(schema: TSchema): schema is TObject {
  const candidate = schema as { type?: unknown; properties?: unknown };
  return candidate.type === 'object' && typeof candidate.properties === 'object' && candidate.properties !== null;
}

/**
 * Whether an object schema's keys are checked. One with `additionalProperties: true` is a token
 * taken as is (a `secondaryType(...)` or a `ResourceKind` as `resourceType`): its listed
 * properties are value-checked, its other keys are its own.
 */
function hasCheckedKeys(schema: TSchema): schema is TObject {
  return isObjectSchema(schema) && (schema as { additionalProperties?: unknown }).additionalProperties !== true;
}

/** The first value the schema refuses, as one error naming the key, the value and the fix. */
function invalidOption(name: string, schema: TObject, options: unknown, validator: Validator): InvalidOptionError {
  const errors = validator.Errors(options);
  const [first] = errors;
  const segments = (first?.instancePath ?? '').split('/').slice(1).map(unescapePointer);
  // A missing required key is reported on its object (`instancePath` ''): name the key itself.
  const missing = first?.keyword === 'required' ? (first.params as { requiredProperties?: string[] }).requiredProperties?.[0] : undefined;
  if (missing !== undefined) segments.push(missing);
  let value: unknown = options;
  let property: TSchema | undefined = schema;
  let optional = false;
  for (const segment of segments) {
    value = isIndexable(value) ? (value as Record<string, unknown>)[segment] : undefined;
    const object: TObject | undefined = property !== undefined && isObjectSchema(property) ? property : undefined;
    optional = object !== undefined && !(object.required ?? []).includes(segment);
    property = object?.properties[segment];
  }
  const key = segments.join('.');
  const description: unknown = property === undefined ? undefined : Reflect.get(property, 'description');
  const wanted = typeof description === 'string' ? description : `a value that ${problemOf(first, errors)}`;
  return new InvalidOptionError({
    options: name,
    key,
    value,
    problem: missing === undefined ? problemOf(first, errors) : 'missing, and required',
    fix: `set ${key} to ${wanted}${optional ? ', or leave it out for the default' : ''}`,
  });
}

/**
 * The problem in words. TypeBox reports a union's failure as each branch's error then `anyOf`, and
 * a literal's as "must be equal to constant": both say more as the values accepted.
 */
function problemOf(first: TLocalizedValidationError | undefined, errors: readonly TLocalizedValidationError[]): string {
  if (first === undefined) return 'not accepted';
  if (errors.some((error) => error.keyword === 'anyOf' && error.instancePath === first.instancePath)) {
    return 'not one of the values accepted';
  }
  if (first.keyword === 'const') return `must be ${JSON.stringify((first.params as { allowedValue?: unknown }).allowedValue)}`;
  return first.message;
}

function isIndexable(value: unknown): boolean {
  return value !== null && (typeof value === 'object' || typeof value === 'function');
}

/** A JSON Pointer segment back to its key (`~1` is `/`, `~0` is `~`). */
function unescapePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}
