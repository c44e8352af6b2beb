import type { KubeCodec, ResponseShape, WatchDecoder, WatchFrameSink } from './codec.js';
import { LineSplitter, type LineSink } from './internal/line-splitter.js';
import { decodeWatchEvent } from './codec.js';

/**
 * The lines of a JSON watch stream, one `{"type":...,"object":...}` event each, decoded and
 * handed to the watch's sink. The decoder is the {@link LineSplitter} itself over this sink:
 * a watch event crosses the splitter's `push` and this `line`, which calls the watch's
 * `WatchFrameSink.frame` itself, with no forwarding call or closure between them, and allocates
 * the line and the parse only.
 */
class JsonFrames implements LineSink {
  readonly #sink: WatchFrameSink;

  constructor(sink: WatchFrameSink) {
    this.#sink = sink;
  }

  line(text: string): void {
    const event = decodeWatchEvent(this.#sink, text, JSON.parse, 'JSON');
    if (event !== undefined) this.#sink.frame(event.type, event.object, text);
  }
}

function decodeJson(body: Buffer): unknown {
  return JSON.parse(body.toString('utf8'));
}

/**
 * The JSON codec (`application/json`): what kindex reads from every API server, and the default
 * of each request.
 */
export const jsonCodec: KubeCodec = Object.freeze({
  mediaType: 'application/json',
  accept: (_shape: ResponseShape): string => 'application/json',
  decodeObject: decodeJson,
  decodeList: decodeJson,
  watchDecoder: (sink: WatchFrameSink, onChunk?: () => void): WatchDecoder => new LineSplitter(new JsonFrames(sink), onChunk),
});
