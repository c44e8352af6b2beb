import { expect } from 'chai';
import type { KubernetesObject } from '@kindex/core';
import { catchInvalidOption } from '@kindex/testing/internal';
import { Kinds, KubernetesDependentResource, Workflow, type KubernetesDependentResourceOptions, type WorkflowNode } from '../index.js';

// The dependent's and the workflow node's options are declared once (defineOptions): a value of
// the wrong type is refused where it is given, with one line naming the object, the key and the fix.

const options = (more: object): KubernetesDependentResourceOptions<KubernetesObject, KubernetesObject> => ({
  kind: Kinds.ConfigMap,
  primaryKind: Kinds.ConfigMap,
  desired: () => ({}),
  ...more,
});

describe('dependent options, declared once', () => {
  it('refuses a desired that is not a function, naming the dependent', async () => {
    const error = await catchInvalidOption(() => new KubernetesDependentResource(options({ name: 'config', desired: { data: {} } })));
    expect(error.code).to.equal('KINDEX_INVALID_OPTION');
    expect(error.message).to.equal(
      'KubernetesDependentResource options (config).desired = {"data":{}}: must be function. ' +
        'Fix: set desired to a function of (primary, context) returning the object',
    );
  });

  it('refuses namespaces given as one string', async () => {
    const error = await catchInvalidOption(() => new KubernetesDependentResource(options({ namespaces: 'team-a' })));
    expect(error.key).to.equal('namespaces');
    expect(error.fix).to.equal('set namespaces to an array of namespace names, or leave it out for the default');
  });

  it('refuses a workflow node whose dependsOn is a string or whose condition is not a function', async () => {
    const dependent = new KubernetesDependentResource(options({ name: 'config' }));
    const dependsOn = await catchInvalidOption(
      () => new Workflow([{ dependent, dependsOn: 'secret' } as unknown as WorkflowNode<KubernetesObject>]),
    );
    expect(dependsOn.message).to.equal(
      `Workflow node [0] (config).dependsOn = "secret": must be array. Fix: set dependsOn to an array of the dependents' names, or leave it out for the default`,
    );
    const condition = await catchInvalidOption(
      () => new Workflow([{ dependent, activationCondition: true } as unknown as WorkflowNode<KubernetesObject>]),
    );
    expect(condition.key).to.equal('activationCondition');
  });
});
