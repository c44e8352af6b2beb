/**
 * @internal How many of `shards` shards the member `self` should hold among the live `members`
 * (lease names, `self` included): exact shares that add up to the shard count, the first
 * `shards mod members` members by lease name (the same order on every replica) taking one more.
 * A plain ceil would let 4 shards settle as 2+2+0 on three replicas.
 */
export function fairShare(shards: number, members: readonly string[], self: string): number {
  const rank = [...members].sort().indexOf(self);
  return Math.floor(shards / members.length) + (rank < shards % members.length ? 1 : 0);
}
