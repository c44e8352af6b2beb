import { createRequire } from 'node:module';
import type * as CborX from 'cbor-x';
import type { KubeCodec, ResponseShape, WatchDecoder, WatchFrameSink } from './codec.js';
import { deliverFrame, framePrefix } from './codec.js';
import { cborItemEnd } from './internal/cbor-item-end.js';
import { WatchLineError } from './response-errors.js';

type CborDecoder = InstanceType<typeof CborX.Decoder>;

let decoder: CborDecoder | undefined;

/**
 * cbor-x's decoder, loaded on the first CBOR body or watch, not with the package: most operators
 * read JSON only, and need not load cbor-x's 3,000 lines. `require`, not `import()`, because a codec
 * decodes synchronously (KubeCodec) and the reflector's per-event path stays a synchronous call
 * chain; the one load blocks once, when a CBOR reflector or request reads its first response.
 * Resolved with the `require` condition, cbor-x's CommonJS build (dist/node.cjs), the same
 * decoder as its ES module one.
 */
function cborDecoder(): CborDecoder {
  return (decoder ??= loadDecoder());
}

function loadDecoder(): CborDecoder {
  const { Decoder, addExtension } = createRequire(import.meta.url)('cbor-x') as typeof CborX;
  // Go's []byte travels under tags 21-23 ("expected later encoding"); JSON carries it as base64url,
  // base64 or base16 text, and so does the decoded object. cbor-x's registry is process-wide; with
  // no Class, an extension only decodes (its types ask for an encoder all the same).
  type Extension = Parameters<typeof addExtension>[0];
  for (const [tag, encoding] of [
    [21, 'base64url'],
    [22, 'base64'],
    [23, 'hex'],
  ] as const) {
    addExtension({ tag, decode: (bytes: Uint8Array) => Buffer.from(bytes).toString(encoding) } as unknown as Extension);
  }
  // Plain objects, no record extension; cbor-x unwraps the self-described tag 55799 itself.
  // int64AsNumber (read by cbor-x, missing from its types): integers of 2^32 and over as numbers,
  // as JSON.parse gives them, not BigInts.
  return new Decoder({ useRecords: false, mapsAsObjects: true, int64AsNumber: true } as ConstructorParameters<typeof Decoder>[0]);
}

/**
 * Decodes one CBOR item that fills `bytes` into the JSON shape. Rewrites `bytes` in place (string
 * heads; see cborItemEnd): the caller's buffer is read from the response and used once.
 */
function decodeItem(bytes: Uint8Array): unknown {
  const end = cborItemEnd(bytes, 0, true);
  if (end === -1) throw new Error(`CBOR item truncated at byte ${bytes.length}`);
  if (end !== bytes.length) throw new Error(`${bytes.length - end} bytes after the CBOR item`);
  return cborDecoder().decode(bytes);
}

/** An `application/cbor-seq` watch: one `{type, object}` item an event, back to back. */
class CborWatchDecoder implements WatchDecoder {
  readonly #sink: WatchFrameSink;
  /** Decodes one frame whose string heads the frame scan already rewrote; bound once a watch. */
  readonly #decodeFrame: (frame: Buffer) => unknown;
  #pending: Buffer | undefined;
  #broken = false;

  constructor(sink: WatchFrameSink) {
    this.#sink = sink;
    const decoder = cborDecoder();
    this.#decodeFrame = (frame) => decoder.decode(frame);
  }

  push(chunk: Buffer): void {
    if (this.#broken) return;
    // An item split across chunks is joined once per chunk that arrives; most events fit in one.
    const bytes = this.#pending === undefined ? chunk : Buffer.concat([this.#pending, chunk]);
    let start = 0;
    while (start < bytes.length) {
      let end: number;
      try {
        end = cborItemEnd(bytes, start, true);
      } catch (error) {
        // A sequence has no separator to resynchronise on: the rest of this watch is unreadable,
        // and the reflector's inactivity timeout replaces it.
        this.#broken = true;
        this.#pending = undefined;
        this.#sink.malformed(new WatchLineError(framePrefix(bytes.subarray(start)), 'not CBOR', { cause: error }));
        return;
      }
      if (end === -1) break;
      this.#frame(bytes.subarray(start, end));
      start = end;
    }
    this.#pending = start === bytes.length ? undefined : bytes.subarray(start);
  }

  flush(): void {
    if (this.#pending === undefined || this.#broken) return;
    const rest = this.#pending;
    this.#pending = undefined;
    this.#sink.malformed(new WatchLineError(framePrefix(rest), 'CBOR item cut off at the end of the watch'));
  }

  #frame(frame: Buffer): void {
    deliverFrame(this.#sink, frame, this.#decodeFrame, 'CBOR');
  }
}

/** client-go's Accept with CBOR allowed: CBOR first, JSON for a server without CBOR. */
const ACCEPT = 'application/cbor;q=1, application/json;q=0.9';

/**
 * The CBOR codec (`application/cbor`, watches as `application/cbor-seq`), as kube-apiserver serves
 * it with the `CBORServingAndStorage` feature gate: it asks for CBOR with JSON as the fallback, so
 * a server without the gate answers JSON, which the request then decodes as JSON. Objects come
 * out in the JSON shape: plain objects, strings (kube-apiserver sends them as byte strings),
 * numbers, Go's []byte as base64.
 *
 * Opt-in through `wire: 'cbor'`: with the bench's objects, decoding CBOR is slower than
 * `JSON.parse` in Node (bench/decoders), so JSON stays the default.
 */
export const cborCodec: KubeCodec = Object.freeze({
  mediaType: 'application/cbor',
  accept: (_shape: ResponseShape): string => ACCEPT,
  decodeObject: decodeItem,
  decodeList: decodeItem,
  watchDecoder: (sink: WatchFrameSink): WatchDecoder => new CborWatchDecoder(sink),
});
