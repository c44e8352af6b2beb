// The kinds the webhook stage writes: its configurations and the CRDs whose conversion it sets.
import { resourceKind } from '../../kind/resource-kind.js';

export const ValidatingConfigurations = resourceKind({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'ValidatingWebhookConfiguration',
  plural: 'validatingwebhookconfigurations',
  namespaced: false,
});
export const MutatingConfigurations = resourceKind({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'MutatingWebhookConfiguration',
  plural: 'mutatingwebhookconfigurations',
  namespaced: false,
});
export const Crds = resourceKind({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});
