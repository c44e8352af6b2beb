/**
 * The WebPage's webhooks: a v2 of the CRD served beside v1 through a conversion webhook (v1, the
 * storage version and the reconciler's, is the hub), and a validating webhook refusing HTML with
 * a script. With `matchPolicy: Equivalent` the API server converts a v2 write to v1 before
 * validating it, so the one webhook guards both versions.
 */
import type { KubernetesObject } from '@kindex/core';
import { resourceKind, type CustomResourceDefinition, type WebhookServer } from '@kindex/informer';
import { WebPageKind, type WebPage } from './webpage-model.js';

/** WebPage v2: the HTML under `content`, and an exposure level instead of a boolean. */
export interface WebPageV2 extends KubernetesObject {
  spec: { content: { html: string }; exposure?: 'Public' | 'Internal' };
  status?: WebPage['status'];
}

export const WebPageV2Kind = resourceKind<WebPageV2>({ ...WebPageKind, version: 'v2' });

/**
 * The WebPage CRD (generated from webpage-model.ts) with v2 served (v1 stays the storage version).
 * The API server checks a write against the schema of the version it is written in, so v2's HTML
 * carries v1's schema (required, with its CEL rule) and a v2 write cannot store a page v1 refuses.
 */
export const WEBPAGE_CRD_WITH_V2: CustomResourceDefinition = (() => {
  const crd = WebPageKind.crd;
  const v1 = crd.spec.versions[0]!;
  const v1Properties = v1.schema.openAPIV3Schema.properties!;
  crd.spec.versions.push({
    name: 'v2',
    served: true,
    storage: false,
    subresources: { status: {} },
    schema: {
      openAPIV3Schema: {
        type: 'object',
        required: ['spec'],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { type: 'object' },
          spec: {
            type: 'object',
            required: ['content'],
            properties: {
              content: { type: 'object', required: ['html'], properties: { html: v1Properties.spec!.properties!.html! } },
              exposure: { type: 'string', enum: ['Public', 'Internal'] },
            },
          },
          status: v1Properties.status!,
        },
      },
    },
  });
  return crd;
})();

/** Registers the WebPage's conversion (v1 hub, v2 spoke) and validating webhooks. */
export function registerWebPageWebhooks(webhooks: WebhookServer): void {
  webhooks.conversion({
    group: WebPageKind.group,
    plural: WebPageKind.plural,
    kind: WebPageKind.kind,
    hub: 'v1',
    spokes: {
      v2: {
        toHub: (o) => {
          const { content, exposure } = (o as WebPageV2).spec;
          const spec: WebPage['spec'] = {
            html: content.html,
            ...(exposure !== undefined ? { exposed: exposure === 'Public' } : {}),
          };
          return { ...o, spec } as WebPage;
        },
        fromHub: (o) => {
          const { html, exposed } = (o as WebPage).spec;
          const spec: WebPageV2['spec'] = {
            content: { html },
            ...(exposed !== undefined ? { exposure: exposed ? 'Public' : 'Internal' } : {}),
          };
          return { ...o, spec } as WebPageV2;
        },
      },
    },
  });
  webhooks.validating<WebPage>({
    kind: WebPageKind,
    validate: ({ object }) =>
      /<script\b/i.test(object?.spec?.html ?? '')
        ? { allowed: false, message: 'spec.html must not contain <script>: the WebPage serves static HTML' }
        : { allowed: true },
  });
}
