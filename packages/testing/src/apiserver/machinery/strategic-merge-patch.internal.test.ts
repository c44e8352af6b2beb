import { expect } from 'chai';
import { strategicMergePatch } from './strategic-merge-patch.js';

describe('strategicMergePatch', () => {
  const pod = {
    metadata: { name: 'p', finalizers: ['a'] },
    spec: {
      containers: [
        { name: 'app', image: 'app:1', env: [{ name: 'X', value: '1' }] },
        { name: 'side', image: 'side:1' },
      ],
      tolerations: [{ key: 'k' }],
    },
  };

  it('merges lists with a merge key element by element', () => {
    const out = strategicMergePatch(pod, { spec: { containers: [{ name: 'app', image: 'app:2' }] } }) as typeof pod;
    expect(out.spec.containers).to.deep.equal([
      { name: 'app', image: 'app:2', env: [{ name: 'X', value: '1' }] },
      { name: 'side', image: 'side:1' },
    ]);
  });

  it('replaces lists without a merge key', () => {
    const out = strategicMergePatch(pod, { spec: { tolerations: [{ key: 'other' }] } }) as typeof pod;
    expect(out.spec.tolerations).to.deep.equal([{ key: 'other' }]);
  });

  it('merges finalizers as a set and deletes with $deleteFromPrimitiveList', () => {
    const added = strategicMergePatch(pod, { metadata: { finalizers: ['b', 'a'] } }) as typeof pod;
    expect(added.metadata.finalizers).to.deep.equal(['a', 'b']);
    const removed = strategicMergePatch(added, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }) as typeof pod;
    expect(removed.metadata.finalizers).to.deep.equal(['b']);
  });

  it('honours $patch: delete on list elements and ignores $setElementOrder', () => {
    const out = strategicMergePatch(pod, {
      spec: { '$setElementOrder/containers': [{ name: 'app' }], containers: [{ name: 'side', $patch: 'delete' }] },
    }) as typeof pod & { spec: Record<string, unknown> };
    expect(out.spec.containers.map((c) => c.name)).to.deep.equal(['app']);
    expect(Object.keys(out.spec)).to.not.include('$setElementOrder/containers');
  });

  it('deletes a field set to null, like a merge patch', () => {
    const out = strategicMergePatch(pod, { spec: { tolerations: null } }) as { spec: Record<string, unknown> };
    expect(out.spec).to.not.have.property('tolerations');
  });
});
