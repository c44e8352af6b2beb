/**
 * The `apiextensions.k8s.io/v1` CustomResourceDefinition object {@link customResource} produces,
 * as plain JSON (ready for `KubeClient.apply` or YAML).
 *
 * @module
 */
import type { JsonSchemaProps } from './json-schema-props.js';

/**
 * A column `kubectl get` prints (`additionalPrinterColumns`).
 *
 * @example
 * ```ts
 * import type { PrinterColumn } from '@kindex/informer';
 *
 * const ready: PrinterColumn = { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' };
 * ```
 */
export interface PrinterColumn {
  readonly name: string;
  readonly type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  /** A JSONPath into the object, starting with `.` (`.spec.replicas`). */
  readonly jsonPath: string;
  readonly description?: string;
  readonly format?: string;
  /** 0 shows the column in the default view, more only with `-o wide`. Defaults to 0. */
  readonly priority?: number;
}

/**
 * The scale subresource, which `kubectl scale` and the HorizontalPodAutoscaler use.
 *
 * @example
 * ```ts
 * import type { ScaleSubresource } from '@kindex/informer';
 *
 * const scale: ScaleSubresource = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' };
 * ```
 */
export interface ScaleSubresource {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

/**
 * One version of a {@link CustomResourceDefinition}.
 *
 * @example
 * ```ts
 * import type { CustomResourceDefinitionVersion } from '@kindex/informer';
 *
 * const v1: CustomResourceDefinitionVersion = {
 *   name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
 * };
 * ```
 */
export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: JsonSchemaProps };
  subresources?: { status?: Record<string, never>; scale?: ScaleSubresource };
  additionalPrinterColumns?: PrinterColumn[];
}

/**
 * An `apiextensions.k8s.io/v1` CustomResourceDefinition.
 *
 * @example
 * ```ts
 * import { customResource, type CustomResourceDefinition } from '@kindex/informer';
 * import Type from 'typebox';
 *
 * const Widgets = customResource({ group: 'example.com', kind: 'Widget', plural: 'widgets', versions: { v1: { spec: Type.Object({}) } } });
 * const crd: CustomResourceDefinition = Widgets.crd;
 * ```
 */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames?: string[]; categories?: string[] };
    versions: CustomResourceDefinitionVersion[];
  };
}
