import { expect } from 'chai';
import { metricsReaderClusterRole, rbacManifest, secureServerPermissions } from '../index.js';
import { toYamlDocuments } from '../internal.js';

describe('secureServerPermissions', () => {
  it('grants create on tokenreviews and subjectaccessreviews in the ClusterRole', () => {
    const { clusterRules, namespacedRules } = rbacManifest(secureServerPermissions(), { name: 'web-operator' });
    expect(clusterRules).to.deep.equal([
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ]);
    expect(namespacedRules.size).to.equal(0);
  });
});

describe('metricsReaderClusterRole', () => {
  it("is `<name>-metrics-reader` with get on /metrics alone, as kubebuilder's metrics-reader", () => {
    expect(toYamlDocuments([metricsReaderClusterRole('web-operator')])).to.equal(
      [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: ClusterRole',
        'metadata:',
        '  name: web-operator-metrics-reader',
        'rules:',
        '  - nonResourceURLs:',
        '      - /metrics',
        '    verbs:',
        '      - get',
        '',
      ].join('\n'),
    );
    expect(metricsReaderClusterRole().metadata.name).to.equal('kindex-operator-metrics-reader');
  });

  it('refuses an empty name', () => {
    expect(() => metricsReaderClusterRole('')).to.throw(
      TypeError,
      `metricsReaderClusterRole: name must be the operator's name, a non-empty string, got ""`,
    );
  });
});
