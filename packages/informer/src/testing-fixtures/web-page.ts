// Test fixture, no tests of its own: the WebPage custom resource (group sample.kindex.dev) the
// event-source suites use as their primary. Not exported from the package index.
import type { KubernetesObject } from '@kindex/core';
import { resourceKind } from '../index.js';

/** A WebPage: JOSDK's sample primary, its spec free-form but for `html`. */
export interface WebPage extends KubernetesObject {
  spec?: { html?: string };
}

/** The WebPage kind; install its CRD with `{ group: 'sample.kindex.dev', kind: 'WebPage' }`. */
export const WebPageKind = resourceKind<WebPage>({
  group: 'sample.kindex.dev',
  version: 'v1',
  kind: 'WebPage',
  plural: 'webpages',
  namespaced: true,
});

/** A WebPage manifest with an empty spec. */
export function webPage(name: string, namespace: string): WebPage {
  return { apiVersion: 'sample.kindex.dev/v1', kind: 'WebPage', metadata: { name, namespace } };
}
