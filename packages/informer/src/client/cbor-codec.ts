import type * as Cborg from 'cborg';
import type { KubeCodec, ResponseShape, WatchDecoder, WatchFrameSink } from './codec.js';
import { decodeWatchEvent, framePrefix } from './codec.js';
import { cborItemEnd } from './internal/cbor-item-end.js';
import { WatchLineError } from './response-errors.js';

/**
 * The CBOR decoder: cborg, pure JavaScript. Not cbor-x, though it decodes kube CBOR about a fifth
 * faster (bench/decoders): cbor-x depends on cbor-extract, a native addon whose install script pnpm
 * blocks with an "Ignored build scripts" warning in every project that installs kindex, and which
 * compiles with node-gyp where no prebuilt binary fits. CBOR is opt-in and slower than JSON with
 * either library, so it is not worth a native build for everyone.
 */
type Decode = (bytes: Uint8Array) => unknown;

let decodeCbor: Decode | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads cborg on the first request that asks for CBOR, not with the package: most operators read
 * JSON only. cborg is ES modules only, so it cannot be required synchronously when a body
 * arrives; requests await this before they are sent (KubeCodec.prepare).
 */
function prepare(): Promise<void> {
  return (loading ??= import('cborg').then((cborg) => {
    decodeCbor = makeDecoder(cborg);
  }));
}

function makeDecoder({ decode, Token, Tokenizer, Type }: typeof Cborg): Decode {
  const utf8 = new TextDecoder();
  /**
   * Reads kube-apiserver's CBOR into the JSON shape as the tokens pass: every string comes as a
   * byte string (fxamacker's StringToByteString), read as text, except those under tags 21-23
   * (Go's []byte, which the tag decoders turn into base64 text as JSON carries them); integers
   * beyond 2^53 become the nearest number, as JSON.parse reads them, not BigInts.
   */
  class KubeTokenizer extends Tokenizer {
    #tagged = false;
    override next(): Cborg.Token {
      const token = super.next();
      const tagged = this.#tagged;
      this.#tagged = false;
      switch (token.type.major) {
        case 2:
          return tagged ? token : new Token(Type.string, utf8.decode(token.value as Uint8Array), token.encodedLength);
        case 6:
          this.#tagged = (token.value as number) >= 21 && (token.value as number) <= 23;
          return token;
        case 0:
        case 1:
          return typeof token.value === 'bigint' ? new Token(token.type, Number(token.value), token.encodedLength) : token;
        default:
          return token;
      }
    }
  }
  const tags: NonNullable<Cborg.DecodeOptions['tags']> = [];
  // The self-described CBOR tag kube-apiserver puts first: no meaning of its own.
  tags[55799] = (inner) => inner();
  // Go's []byte travels under tags 21-23 ("expected later encoding"); JSON carries it as
  // base64url, base64 or base16 text, and so does the decoded object.
  for (const [tag, encoding] of [
    [21, 'base64url'],
    [22, 'base64'],
    [23, 'hex'],
  ] as const) {
    tags[tag] = (inner) => Buffer.from(inner() as Uint8Array).toString(encoding);
  }
  // allowBigInt: the tokenizer turns the BigInts into numbers; without it cborg refuses them.
  const tokenizerOptions = { allowBigInt: true };
  return (bytes): unknown => decode(bytes, { tags, tokenizer: new KubeTokenizer(bytes, tokenizerOptions) }) as unknown;
}

function loadedDecoder(): Decode {
  if (decodeCbor === undefined) throw new Error('the CBOR codec decodes only after its prepare() resolved');
  return decodeCbor;
}

/** Decodes one CBOR item that fills `bytes` into the JSON shape. */
function decodeItem(bytes: Uint8Array): unknown {
  const decode = loadedDecoder();
  try {
    return decode(bytes);
  } catch (error) {
    // cborg's own message names its state, not the bytes: say what is wrong with the item.
    const end = cborItemEnd(bytes, 0);
    if (end === -1) throw new Error(`CBOR item truncated at byte ${bytes.length}`, { cause: error });
    if (end !== bytes.length) throw new Error(`${bytes.length - end} bytes after the CBOR item`, { cause: error });
    throw error;
  }
}

/** An `application/cbor-seq` watch: one `{type, object}` item an event, back to back. */
class CborWatchDecoder implements WatchDecoder {
  readonly #sink: WatchFrameSink;
  readonly #decodeFrame: Decode;
  /** Called at the start of each push (see `KubeCodec.watchDecoder`). */
  readonly #onChunk: (() => void) | undefined;
  #pending: Buffer | undefined;
  #broken = false;

  constructor(sink: WatchFrameSink, onChunk: (() => void) | undefined) {
    this.#sink = sink;
    this.#onChunk = onChunk;
    this.#decodeFrame = loadedDecoder();
  }

  push(chunk: Buffer): void {
    // Every chunk counts as activity, even on a broken stream (as the separate listener did).
    this.#onChunk?.();
    if (this.#broken) return;
    // An item split across chunks is joined once per chunk that arrives; most events fit in one.
    const bytes = this.#pending === undefined ? chunk : Buffer.concat([this.#pending, chunk]);
    let start = 0;
    while (start < bytes.length) {
      let end: number;
      try {
        end = cborItemEnd(bytes, start);
      } catch (error) {
        // A sequence has no separator to resynchronise on: the rest of this watch is unreadable,
        // and the reflector's inactivity timeout replaces it.
        this.#broken = true;
        this.#pending = undefined;
        this.#sink.malformed(new WatchLineError(framePrefix(bytes.subarray(start)), 'not CBOR', { cause: error }));
        return;
      }
      if (end === -1) break;
      // Decoded and handed to the sink here, not in a method of its own: one frame less on every event.
      const frame = bytes.subarray(start, end);
      const event = decodeWatchEvent(this.#sink, frame, this.#decodeFrame, 'CBOR');
      if (event !== undefined) this.#sink.frame(event.type, event.object, frame);
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
  prepare,
  decodeObject: decodeItem,
  decodeList: decodeItem,
  watchDecoder: (sink: WatchFrameSink, onChunk?: () => void): WatchDecoder => new CborWatchDecoder(sink, onChunk),
});
