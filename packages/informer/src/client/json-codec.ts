import type { KubeCodec, ResponseShape, WatchDecoder, WatchFrameSink } from './codec.js';
import { LineSplitter } from './internal/line-splitter.js';
import { deliverFrame } from './codec.js';

/** A JSON watch stream: one `{"type":...,"object":...}` event a line. */
class JsonWatchDecoder implements WatchDecoder {
  readonly #sink: WatchFrameSink;
  // One splitter per watch, bound once: the per-event path allocates the line and the parse only.
  readonly #splitter = new LineSplitter((line) => this.#line(line));

  constructor(sink: WatchFrameSink) {
    this.#sink = sink;
  }

  push(chunk: Buffer): void {
    this.#splitter.push(chunk);
  }

  flush(): void {
    this.#splitter.flush();
  }

  #line(line: string): void {
    deliverFrame(this.#sink, line, JSON.parse, 'JSON');
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
  watchDecoder: (sink: WatchFrameSink): WatchDecoder => new JsonWatchDecoder(sink),
});
