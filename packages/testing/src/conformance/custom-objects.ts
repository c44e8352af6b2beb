// Coordinates and bodies of a test CRD's custom objects, for the CRD schema conformance files.
import type { TestCrd, Widget } from '../helpers/test-crd.js';

/** `at` for CustomObjectsApi calls in `namespace`; `body(spec, name)` a custom object (named `w` by default). */
export function customObjects(crd: TestCrd, namespace: string) {
  return {
    at: { group: crd.group, version: crd.version, plural: crd.plural, namespace },
    body: (spec: Record<string, unknown>, name = 'w'): Widget => ({ apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name }, spec }),
  };
}
