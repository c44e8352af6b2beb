// Test fixture, no tests of its own: the Widget custom resource most informer suites reconcile.
// Not exported from the package index.
import type { KubernetesObject } from '@kindex/core';
import { resourceKind } from '../index.js';

/** A Widget: `spec.size`, and the status fields the suites' reconcilers write. */
export interface Widget extends KubernetesObject {
  spec?: { size?: number; config?: string };
  status?: { seen?: number; value?: string; count?: number; error?: string; attempts?: number };
}

/** The Widget CRD of group test.kindex.dev, as `useOperatorSuite({ crd: WIDGET_CRD })` installs it. */
export const WIDGET_CRD = { group: 'test.kindex.dev', kind: 'Widget' } as const;

/** The Widget kind of {@link WIDGET_CRD}. */
export const WidgetKind = resourceKind<Widget>({
  group: WIDGET_CRD.group,
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});
