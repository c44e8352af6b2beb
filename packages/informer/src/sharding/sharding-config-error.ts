/** A sharding option that cannot work, named with its value and the fix. */
export class ShardingConfigError extends Error {
  override readonly name = 'ShardingConfigError';
  constructor(
    readonly field: string,
    readonly value: unknown,
    fix: string,
  ) {
    super(`sharding.${field} = ${JSON.stringify(value)}: ${fix}`);
  }
}
