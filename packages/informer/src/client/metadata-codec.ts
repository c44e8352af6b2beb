import { isJsonObject } from '@kindex/core/internal';
import type { KubeCodec, ResponseShape, WatchDecoder, WatchFrameSink } from './codec.js';
import { decodeWatchEvent } from './codec.js';
import { jsonCodec } from './json-codec.js';
import { LineSplitter, type LineSink } from './internal/line-splitter.js';

// What client-go's metadata client sends (metadata/metadata.go), without its protobuf clause: a
// list asks for PartialObjectMetadataList and one object or a watch's events for
// PartialObjectMetadata. kube-apiserver answers PartialObjectMetadata to a list with a 406, and a
// watch asked as PartialObjectMetadataList with an empty stream. The trailing plain JSON clause
// lets a server that does not convert (an aggregated API server, an old proxy) answer whole objects.
const OBJECT_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/**
 * The object's metadata alone, without kind and apiVersion: the reflector and the client then
 * stamp the resource's kind, as controller-runtime sets the watched GVK on each
 * PartialObjectMetadata it caches. Keeping `metadata` only also makes a server that answered whole
 * objects (it ignored `as=`) cost no more memory than one that converted.
 */
function toMetadata(value: unknown): unknown {
  return isJsonObject(value) && isJsonObject(value['metadata']) ? { metadata: value['metadata'] } : value;
}

function decodeObject(body: Buffer): unknown {
  const decoded = jsonCodec.decodeObject(body);
  // An error's Status is read for its reason and message: keep it whole.
  return isJsonObject(decoded) && decoded['kind'] === 'Status' ? decoded : toMetadata(decoded);
}

function decodeList(body: Buffer): unknown {
  const decoded = jsonCodec.decodeList(body);
  if (!isJsonObject(decoded)) return decoded;
  const items = decoded['items'];
  // Go writes an empty PartialObjectMetadataList's nil slice as `"items":null`.
  if (items === null) return { ...decoded, items: [] };
  return Array.isArray(items) ? { ...decoded, items: items.map(toMetadata) } : decoded;
}

/**
 * The lines of a metadata-only watch: each event decoded as JSON and its object cut to its
 * `metadata` before the watch's sink gets it, by a direct call, as the JSON codec's lines are.
 */
class MetadataFrames implements LineSink {
  readonly #sink: WatchFrameSink;

  constructor(sink: WatchFrameSink) {
    this.#sink = sink;
  }

  line(text: string): void {
    const event = decodeWatchEvent(this.#sink, text, JSON.parse, 'JSON');
    if (event === undefined) return;
    const { type, object } = event;
    // ERROR carries a Status, BOOKMARK a resourceVersion (and the watch-list annotation): as sent.
    this.#sink.frame(type, type === 'ERROR' || type === 'BOOKMARK' ? object : toMetadata(object), text);
  }
}

/**
 * The metadata-only codec: asks the server for `PartialObjectMetadata` (`as=` on the Accept header,
 * JSON) and hands on each object's `metadata` alone, whatever the server sent. Used for the kinds
 * made with {@link metadataOnly}; {@link readCodec} picks it for them.
 */
export const metadataCodec: KubeCodec = Object.freeze({
  mediaType: 'application/json',
  accept: (shape: ResponseShape): string => (shape === 'list' ? LIST_ACCEPT : OBJECT_ACCEPT),
  decodeObject,
  decodeList,
  watchDecoder: (sink: WatchFrameSink, onChunk?: () => void): WatchDecoder => new LineSplitter(new MetadataFrames(sink), onChunk),
});
