/**
 * The WebPage's webhooks: a v2 of the CRD served beside v1 through a conversion webhook (v1, the
 * storage version and the reconciler's, is the hub), and a validating webhook refusing HTML with
 * a script. With `matchPolicy: Equivalent` the API server converts a v2 write to v1 before
 * validating it, so the one webhook guards both versions.
 */
import type { KubernetesObject } from '@kindex/core';
import { resourceKind, type WebhookServer } from '@kindex/informer';
import { WEBPAGE_CRD, WebPageKind, type WebPage } from './webpage-model.js';

/** WebPage v2: the HTML under `content`, and an exposure level instead of a boolean. */
export interface WebPageV2 extends KubernetesObject {
  spec?: { content?: { html?: string }; exposure?: 'Public' | 'Internal' };
  status?: WebPage['status'];
}

export const WebPageV2Kind = resourceKind<WebPageV2>({ ...WebPageKind, version: 'v2' });

/** The WebPage CRD with v2 served (v1 stays the storage version). */
export const WEBPAGE_CRD_WITH_V2 = {
  ...WEBPAGE_CRD,
  spec: {
    ...WEBPAGE_CRD.spec,
    versions: [
      ...WEBPAGE_CRD.spec.versions,
      {
        name: 'v2',
        served: true,
        storage: false,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  content: { type: 'object', properties: { html: { type: 'string' } } },
                  exposure: { type: 'string', enum: ['Public', 'Internal'] },
                },
              },
              status: WEBPAGE_CRD.spec.versions[0]!.schema.openAPIV3Schema.properties.status,
            },
          },
        },
      },
    ],
  },
};

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
          const { content, exposure } = (o as WebPageV2).spec ?? {};
          const spec: WebPage['spec'] = {
            ...(content?.html !== undefined ? { html: content.html } : {}),
            ...(exposure !== undefined ? { exposed: exposure === 'Public' } : {}),
          };
          return { ...o, spec } as WebPage;
        },
        fromHub: (o) => {
          const { html, exposed } = (o as WebPage).spec ?? {};
          const spec: WebPageV2['spec'] = {
            ...(html !== undefined ? { content: { html } } : {}),
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
