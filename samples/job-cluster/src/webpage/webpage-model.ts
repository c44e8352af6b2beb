// The WebPage custom resource, defined once in TypeScript: its type, resource kind and CRD
// (crds/webpages.sample.javaoperatorsdk.yaml is generated from this file by `pnpm run crds`, and
// integration-tests' sample-crds test fails when it is stale).
import Type from 'typebox';
import type { Condition } from '@kindex/core';
import { customResource, resourceKind, type ObjectOfKind } from '@kindex/informer';

/**
 * metav1.Condition's schema, keyed by `type` as its `+listType=map` marker says, so that two
 * writers' server-side applies merge per condition instead of replacing the list. The static type
 * is core's `readonly Condition[]`, which `setStatusCondition` takes and returns.
 */
const Conditions = Type.Unsafe<readonly Condition[]>(
  Type.Array(
    Type.Object({
      type: Type.String({ maxLength: 316 }),
      status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')]),
      observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
      lastTransitionTime: Type.String({ format: 'date-time' }),
      reason: Type.String({ minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
      message: Type.String({ maxLength: 32768 }),
    }),
    { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
  ),
);

/**
 * A WebPage (JOSDK's WebPage sample): HTML served by nginx, optionally exposed by an Ingress.
 * Its HTML must not be blank: nginx would serve an empty page, which is never what was meant.
 */
export const WebPageKind = customResource({
  group: 'sample.javaoperatorsdk',
  kind: 'WebPage',
  plural: 'webpages',
  versions: {
    v1: {
      spec: Type.Object({
        // 512 KiB leaves room in the ConfigMap (1 MiB at most) and bounds the rule's CEL cost.
        html: Type.String({
          maxLength: 524288,
          'x-kubernetes-validations': [
            {
              rule: 'self.trim().size() > 0',
              // No string(self.size()) here: kube-apiserver estimates a string built from it as
              // unbounded and refuses the CRD (messageExpression cost over budget by more than 100x).
              messageExpression:
                "'html must not be blank (' + (self.size() == 0 ? 'it is empty' : 'it holds only whitespace') + '): put the page in spec.html'",
            },
          ],
        }),
        exposed: Type.Optional(Type.Boolean()),
      }),
      status: Type.Object({
        htmlConfigMap: Type.Optional(Type.String()),
        ready: Type.Optional(Type.Boolean()),
        dependents: Type.Optional(Type.Record(Type.String(), Type.String())),
        errorMessage: Type.Optional(Type.String()),
        /** The `Ready` condition (the Kubernetes convention), with the generation it describes. */
        conditions: Type.Optional(Conditions),
      }),
      printerColumns: [
        { name: 'Ready', type: 'boolean', jsonPath: '.status.ready' },
        { name: 'ConfigMap', type: 'string', jsonPath: '.status.htmlConfigMap' },
      ],
    },
  },
});
export type WebPage = ObjectOfKind<typeof WebPageKind>;

export const DeploymentKind = resourceKind({ group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true });
export const IngressKind = resourceKind({
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'Ingress',
  plural: 'ingresses',
  namespaced: true,
});
