/**
 * The few calls kindex makes to etcd, through its v3 JSON gateway (gRPC-gateway on the client
 * port): no etcdctl and no gRPC client needed. int64 fields travel as JSON strings.
 */
export class EtcdGateway {
  constructor(
    /** For example `http://127.0.0.1:2379`. */
    readonly clientUrl: string,
  ) {}

  /** Whether etcd answers `/health` with `"health":"true"`. */
  async healthy(): Promise<boolean> {
    try {
      const response = await fetch(`${this.clientUrl}/health`, { signal: AbortSignal.timeout(2_000) });
      const body = (await response.json()) as { health?: unknown };
      return response.ok && body.health === 'true';
    } catch {
      return false;
    }
  }

  /** The store's current revision, from the header of an empty count-only range. */
  async currentRevision(): Promise<number> {
    // Key "\0" with count_only: touches nothing, answers with the header.
    const body = (await this.post('/v3/kv/range', { key: 'AA==', count_only: true })) as {
      header?: { revision?: string };
    };
    const revision = Number(body.header?.revision);
    if (!Number.isSafeInteger(revision) || revision <= 0) {
      throw new Error(`etcd ${this.clientUrl}: no revision in the range header: ${JSON.stringify(body)}`);
    }
    return revision;
  }

  /**
   * Compacts the history up to `revision`: reads and watches from an older revision fail from
   * now on. `physical` waits until the space is really reclaimed, so the effect is complete on return.
   */
  async compact(revision: number): Promise<void> {
    try {
      await this.post('/v3/kv/compaction', { revision: String(revision), physical: true });
    } catch (error) {
      // Nothing written since the last compaction (ours or kube-apiserver's periodic one): the
      // history is already gone, which is what was asked.
      if (error instanceof Error && error.message.includes('required revision has been compacted')) return;
      throw error;
    }
  }

  private async post(path: string, body: unknown): Promise<unknown> {
    const response = await fetch(`${this.clientUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`etcd ${this.clientUrl}${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as unknown;
  }
}
