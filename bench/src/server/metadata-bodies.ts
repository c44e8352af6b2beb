// Metadata-only answers of the stream server: a client whose Accept asks for
// `as=PartialObjectMetadataList` (a list) or `as=PartialObjectMetadata` (a watch), as kindex's
// metadata-only kinds and client-go's metadata informer do, gets the same objects as
// kube-apiserver 1.36 would convert them: `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":...}`.
// Bodies are converted once per fixture and kept, so the conversion is not timed as the client's.

/** Whether `accept` asks for metadata only (in its JSON or protobuf clause). */
export function wantsMetadata(accept: string | undefined): boolean {
  return accept !== undefined && /;\s*as=PartialObjectMetadata(List)?\b/.test(accept);
}

interface Converted {
  kind?: unknown;
  metadata?: unknown;
}

function partial(object: Converted): object {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

/** A JSON list body as a PartialObjectMetadataList (list metadata kept). */
export function metadataList(body: Buffer): Buffer {
  const list = JSON.parse(body.toString('utf8')) as { metadata: unknown; items: Converted[] };
  return Buffer.from(
    JSON.stringify({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: list.metadata,
      items: list.items.length === 0 ? null : list.items.map(partial),
    }),
  );
}

/** JSON watch lines (whole lines per chunk or across chunks) with each event's object as PartialObjectMetadata, ERROR kept. */
export function metadataWatch(chunks: readonly Buffer[]): Buffer[] {
  const out: Buffer[] = [];
  const lines = Buffer.concat(chunks).toString('utf8').split('\n');
  let batch: string[] = [];
  for (const line of lines) {
    if (line === '') continue;
    const event = JSON.parse(line) as { type: string; object: Converted };
    batch.push(`${event.type === 'ERROR' ? line : JSON.stringify({ type: event.type, object: partial(event.object) })}\n`);
    // About 1 MB slices, as the JSON chunks come.
    if (batch.length >= 1000) {
      out.push(Buffer.from(batch.join('')));
      batch = [];
    }
  }
  if (batch.length > 0) out.push(Buffer.from(batch.join('')));
  return out;
}

/** Conversions done once per body or chunk list, keyed by the original. */
export class MetadataBodies {
  readonly #lists = new WeakMap<Buffer, Buffer>();
  readonly #watches = new WeakMap<readonly Buffer[], Buffer[]>();
  readonly #single = new WeakMap<Buffer, Buffer>();

  list(body: Buffer): Buffer {
    let converted = this.#lists.get(body);
    if (converted === undefined) this.#lists.set(body, (converted = metadataList(body)));
    return converted;
  }

  watch(chunks: readonly Buffer[]): Buffer[] {
    let converted = this.#watches.get(chunks);
    if (converted === undefined) this.#watches.set(chunks, (converted = metadataWatch(chunks)));
    return converted;
  }

  /** One chunk of watch lines (the relist script's expiry or follow-up). */
  lines(chunk: Buffer): Buffer {
    let converted = this.#single.get(chunk);
    if (converted === undefined) this.#single.set(chunk, (converted = Buffer.concat(metadataWatch([chunk]))));
    return converted;
  }
}
