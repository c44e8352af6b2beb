// Test fixture (no tests of its own; named *.test.ts so it stays out of the published package).
import { LeaseConflictError, type Lease, type LeaseSpec, type ShardLeaseStore } from '../index.js';

/** Leases in memory with resourceVersions, as the API server keeps them; one view per replica can be cut off. */
export class MemoryLeases {
  readonly leases = new Map<string, Lease>();
  #rv = 1;

  /** @param gate awaited before every call: a call hangs while it is pending (a server that stopped answering). */
  view(isCut: () => boolean, gate: () => Promise<void> = () => Promise.resolve()): ShardLeaseStore {
    const check = async (): Promise<void> => {
      await gate();
      if (isCut()) throw new Error('network partition');
    };
    return {
      description: 'memory',
      list: async () => {
        await check();
        return [...this.leases.values()];
      },
      create: async (name: string, spec: LeaseSpec, annotations?: Readonly<Record<string, string>>) => {
        await check();
        if (this.leases.has(name)) throw new LeaseConflictError(name);
        const lease: Lease = { metadata: { name, resourceVersion: String(this.#rv++), annotations: { ...annotations } }, spec };
        this.leases.set(name, lease);
        return lease;
      },
      update: async (current: Lease, spec: LeaseSpec, annotations?: Readonly<Record<string, string>>) => {
        await check();
        const name = current.metadata!.name!;
        const stored = this.leases.get(name);
        if (stored === undefined || stored.metadata!.resourceVersion !== current.metadata!.resourceVersion)
          throw new LeaseConflictError(name);
        const lease: Lease = {
          metadata: { name, resourceVersion: String(this.#rv++), annotations: { ...stored.metadata!.annotations, ...annotations } },
          spec,
        };
        this.leases.set(name, lease);
        return lease;
      },
    };
  }
}
