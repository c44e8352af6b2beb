// The WebPage custom resource, defined once in TypeScript: its type, resource kind and CRD
// (crds/webpages.sample.javaoperatorsdk.yaml is generated from this file by `pnpm run crds`, and
// integration-tests' sample-crds test fails when it is stale).
import Type from 'typebox';
import { Conditions, customResource, resourceKind, type ObjectOfKind } from '@kindex/informer';

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
