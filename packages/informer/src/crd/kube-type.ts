/**
 * TypeBox builders for the shapes only Kubernetes schemas have.
 *
 * @module
 */
import type { KubernetesObject } from '@kindex/core';
import Type, { type TInteger, type TNull, type TObject, type TSchema, type TString, type TUnion, type TUnsafe } from 'typebox';

/**
 * The static type of {@link KubeType.EmbeddedResource}: a Kubernetes object with any fields.
 *
 * @example
 * ```ts
 * import type { EmbeddedObject } from '@kindex/informer';
 *
 * const template: EmbeddedObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} };
 * ```
 */
export type EmbeddedObject = KubernetesObject & { apiVersion: string; kind: string; [field: string]: unknown };

/**
 * TypeBox builders for Kubernetes-only schema shapes, each translating to its CRD keyword:
 * int-or-string, nullable, embedded resources and objects that keep unknown fields.
 *
 * @example
 * ```ts
 * import Type from 'typebox';
 * import { KubeType } from '@kindex/informer';
 *
 * const spec = Type.Object({
 *   port: KubeType.IntOrString(),                 // x-kubernetes-int-or-string
 *   note: KubeType.Nullable(Type.String()),        // nullable: true
 *   template: KubeType.EmbeddedResource(),         // x-kubernetes-embedded-resource
 *   extra: Type.Optional(KubeType.AnyObject()),    // x-kubernetes-preserve-unknown-fields
 * });
 * ```
 */
export const KubeType = {
  /** A port or a percentage: an integer or a string (`x-kubernetes-int-or-string`). */
  IntOrString(options: { description?: string; default?: number | string } = {}): TUnion<[TInteger, TString]> {
    return Type.Union([Type.Integer(), Type.String()], { ...options, 'x-kubernetes-int-or-string': true });
  },
  /** `T` or `null` (`nullable: true`). */
  Nullable<T extends TSchema>(schema: T): TUnion<[T, TNull]> {
    return Type.Union([schema, Type.Null()]);
  },
  /** A whole Kubernetes object inside this one (a Pod template): apiVersion, kind and metadata are checked by the server. */
  EmbeddedResource(options: { description?: string } = {}): TUnsafe<EmbeddedObject> {
    return Type.Unsafe<EmbeddedObject>({
      ...options,
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
    });
  },
  /** An object whose fields the server keeps as they are (`x-kubernetes-preserve-unknown-fields`). */
  AnyObject(options: { description?: string } = {}): TObject<Record<string, never>> & { additionalProperties: true } {
    return Type.Object({}, { ...options, additionalProperties: true }) as TObject<Record<string, never>> & { additionalProperties: true };
  },
} as const;
