import { expect } from 'chai';
import fc from 'fast-check';
import type { HandlerError, KubernetesObject, ResourceEvent } from '../index.js';
import { enqueueForOwner } from '../index.js';
import { mapEvent } from '../internal.js';

const goodRef = fc.record({
  apiVersion: fc.constantFrom('apps/v1', 'apps/v1beta2', 'v1', 'example.com/v1'),
  kind: fc.constantFrom('ReplicaSet', 'Deployment'),
  name: fc.constantFrom('a', 'b', 'c'),
  uid: fc.constant('u'),
  controller: fc.option(fc.boolean(), { nil: undefined }),
});
const badRef = fc.oneof(
  goodRef.map(({ kind: _k, ...r }) => r),
  goodRef.map((r) => ({ ...r, apiVersion: 'a/b/c' })),
  goodRef.map((r) => ({ ...r, name: '' })),
  fc.constant(null),
);
const refs: fc.Arbitrary<unknown[]> = fc.array(fc.oneof({ weight: 3, arbitrary: goodRef }, { weight: 1, arbitrary: badRef }), {
  maxLength: 6,
});
const pod = (r: unknown[]): KubernetesObject => ({ metadata: { name: 'p', namespace: 'ns', ownerReferences: r as never } });
type Ref = { apiVersion: string; kind: string; name: string; controller?: boolean };
const isGood = (r: unknown): r is Ref =>
  r !== null && typeof r === 'object' && 'kind' in r && (r as Ref).name !== '' && (r as Ref).apiVersion !== 'a/b/c';

describe('enqueueForOwner (properties)', () => {
  it('returns exactly the well-formed apps/ReplicaSet owners of old and new, each once, and reports each malformed one', () => {
    fc.assert(
      fc.property(refs, refs, (oldRefs, newRefs) => {
        const errors: HandlerError[] = [];
        const e: ResourceEvent = { type: 'update', oldObject: pod(oldRefs), object: pod(newRefs) };
        const got = mapEvent(enqueueForOwner({ group: 'apps', kind: 'ReplicaSet' }), e, (err) => errors.push(err)).map((id) => id.key);
        const want = new Set(
          [...oldRefs, ...newRefs]
            .filter(isGood)
            .filter((r) => r.kind === 'ReplicaSet' && r.apiVersion.startsWith('apps/'))
            .map((r) => `ns/${r.name}`),
        );
        expect(new Set(got)).to.deep.equal(want);
        expect(got.length).to.equal(want.size);
        expect(errors.length).to.equal([...oldRefs, ...newRefs].filter((r) => !isGood(r)).length);
      }),
    );
  });

  it('with controllerOnly, returns at most the first controller reference of each version', () => {
    fc.assert(
      fc.property(refs, (rs) => {
        const got = mapEvent(
          enqueueForOwner({ group: 'apps', kind: 'ReplicaSet', controllerOnly: true }),
          { type: 'create', object: pod(rs) },
          () => {},
        );
        const first = rs.find((r) => r !== null && typeof r === 'object' && (r as { controller?: boolean }).controller === true);
        const want =
          first !== undefined && isGood(first) && first.kind === 'ReplicaSet' && first.apiVersion.startsWith('apps/')
            ? [`ns/${first.name}`]
            : [];
        expect(got.map((id) => id.key)).to.deep.equal(want);
      }),
    );
  });
});
