// Test fixture (no tests of its own; named *.test.ts so it stays out of the published package).
import fc from 'fast-check';

/** What happens to a group of replicas in a property test: one joins, leaves, dies or is cut off, or time passes. */
export type ReplicaAction =
  | { readonly type: 'join' }
  | { readonly type: 'leave'; readonly pick: number }
  | { readonly type: 'kill'; readonly pick: number }
  | { readonly type: 'partition'; readonly pick: number; readonly ms: number }
  | { readonly type: 'wait'; readonly ms: number };

/** One arbitrary per kind of {@link ReplicaAction}, for `fc.oneof` with the weights a test wants. */
export const replicaActions = {
  join: fc.constant({ type: 'join' as const }),
  leave: fc.record({ type: fc.constant('leave' as const), pick: fc.nat() }),
  kill: fc.record({ type: fc.constant('kill' as const), pick: fc.nat() }),
  partition: fc.record({ type: fc.constant('partition' as const), pick: fc.nat(), ms: fc.integer({ min: 500, max: 8000 }) }),
  wait: fc.record({ type: fc.constant('wait' as const), ms: fc.integer({ min: 100, max: 6000 }) }),
};
