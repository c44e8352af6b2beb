import { type Condition, type KubernetesObject } from '@kindex/core';
import { resourceKind } from '@kindex/informer';

/** A WebPage (JOSDK's WebPage sample): HTML served by nginx, optionally exposed by an Ingress. */
export interface WebPage extends KubernetesObject {
  spec?: { html?: string; exposed?: boolean };
  status?: {
    htmlConfigMap?: string;
    ready?: boolean;
    dependents?: Record<string, string>;
    errorMessage?: string;
    /** The `Ready` condition (the Kubernetes convention), with the generation it describes. */
    conditions?: readonly Condition[];
  };
}

export const WebPageKind = resourceKind<WebPage>({
  group: 'sample.javaoperatorsdk',
  version: 'v1',
  kind: 'WebPage',
  plural: 'webpages',
  namespaced: true,
});
export const DeploymentKind = resourceKind({ group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true });
export const IngressKind = resourceKind({
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'Ingress',
  plural: 'ingresses',
  namespaced: true,
});

/** The CRD of WebPage, with printer columns for `kubectl get webpages`. */
export const WEBPAGE_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'webpages.sample.javaoperatorsdk' },
  spec: {
    group: 'sample.javaoperatorsdk',
    scope: 'Namespaced',
    names: { plural: 'webpages', singular: 'webpage', kind: 'WebPage', listKind: 'WebPageList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Ready', type: 'boolean', jsonPath: '.status.ready' },
          { name: 'ConfigMap', type: 'string', jsonPath: '.status.htmlConfigMap' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { html: { type: 'string' }, exposed: { type: 'boolean' } } },
              status: {
                type: 'object',
                properties: {
                  htmlConfigMap: { type: 'string' },
                  ready: { type: 'boolean' },
                  errorMessage: { type: 'string' },
                  dependents: { type: 'object', additionalProperties: { type: 'string' } },
                  // metav1.Condition's schema, keyed by type as its +listType=map marker says.
                  conditions: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['type'],
                    items: {
                      type: 'object',
                      required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
                      properties: {
                        type: { type: 'string', maxLength: 316 },
                        status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
                        observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
                        lastTransitionTime: { type: 'string', format: 'date-time' },
                        reason: { type: 'string', maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' },
                        message: { type: 'string', maxLength: 32768 },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};
