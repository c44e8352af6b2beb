/**
 * The codec seam of the HTTP layer: one {@link KubeCodec} per media type turns the server's bytes
 * into objects, lists and watch frames, and names the Accept header that asks for them.
 *
 * JSON ({@link jsonCodec}) is the default; CBOR ({@link cborCodec}: `application/cbor`, with
 * `application/cbor-seq` watch frames) is chosen by a reflector's `wire` option, and the
 * metadata-only codec (`as=PartialObjectMetadata` on the Accept header, per shape) by the kind;
 * `readCodec` (read-codec.ts) makes that one choice for the reflector and the client. Each is one
 * more implementation of this interface handed to the request: the layer does not change. Frames are cut by the codec, not by the
 * caller, because each media type frames a watch its own way (JSON: one event a line; CBOR and
 * protobuf: length-prefixed).
 *
 * @module
 */
import { WatchLineError } from './response-errors.js';

/** What a response holds: one object, a list (`items` + list metadata), or a stream of watch events. */
export type ResponseShape = 'object' | 'list' | 'watch';

/**
 * Where a watch decoder delivers what it cut from the stream: called synchronously, in order, by
 * the decoder itself, with no forwarding call between (the reflector's watch is its own sink, so a
 * watch event goes from the decoder straight into the frame handler).
 */
export interface WatchFrameSink {
  /**
   * One decoded watch event. `type` and `object` are as the server sent them (not yet checked);
   * `frame` is the undecoded event, for error messages only (see {@link framePrefix}).
   */
  frame(type: unknown, object: unknown, frame: string | Uint8Array): void;
  /** A frame that could not be decoded; the stream goes on with the next one. */
  malformed(error: WatchLineError): void;
}

/** Cuts a watch response into frames and decodes each; one per watch request. */
export interface WatchDecoder {
  /** Feeds the next chunk read from the response; calls the sink for each frame it completes. */
  push(chunk: Buffer): void;
  /** The response ended: decodes a last frame that had no terminator. */
  flush(): void;
}

/** A decoder for one media type. Decoders throw on bytes that are not of their type. */
export interface KubeCodec {
  /** The media type it reads, without parameters (`application/json`). */
  readonly mediaType: string;
  /** The Accept header for a request expecting `shape`. */
  accept(shape: ResponseShape): string;
  /**
   * Loads what the codec decodes with; a request awaits it before it is sent, so the decoders,
   * which are synchronous, find it loaded. For a codec whose library most users never need.
   */
  prepare?(): Promise<void>;
  /** Decodes a whole body holding one object (or a Status). */
  decodeObject(body: Buffer): unknown;
  /** Decodes a whole body holding a list (`items`, `metadata.resourceVersion`, `metadata.continue`). */
  decodeList(body: Buffer): unknown;
  /**
   * A decoder for one watch response, delivering to `sink`. `onChunk`, if given, is called at the
   * start of each `push`, before any frame of that chunk: the reflector's watch feeds its
   * inactivity watchdog from it, so the response has one data listener (the decoder's push), not
   * two (Node copies an event's listener array on every emit when it has more than one).
   */
  watchDecoder(sink: WatchFrameSink, onChunk?: () => void): WatchDecoder;
}

/** How much of a bad frame an error message quotes. */
const FRAME_PREFIX_LENGTH = 120;

/** The start of a frame, printable: text as is, bytes in hex. For error messages only. */
export function framePrefix(frame: string | Uint8Array): string {
  if (typeof frame === 'string') return frame.slice(0, FRAME_PREFIX_LENGTH);
  return Buffer.from(frame.subarray(0, FRAME_PREFIX_LENGTH / 2)).toString('hex');
}

/** A decoded watch event, not yet checked: `type` and `object` as the server sent them, if at all. */
export interface DecodedWatchEvent {
  readonly type?: unknown;
  readonly object?: unknown;
}

/** What a frame that decodes to no object (`null`, a number) reads as: an event without a type. */
const NO_EVENT: DecodedWatchEvent = Object.freeze({});

/**
 * Decodes one cut watch frame into its event; when `decode` throws, hands `sink` a
 * {@link WatchLineError} saying the frame is `not <format>` and returns undefined. The decoder
 * then calls `sink.frame` itself, so this function has returned by the time the event runs down
 * the event path: it is no frame of that path's stack.
 */
export function decodeWatchEvent<F extends string | Uint8Array>(
  sink: WatchFrameSink,
  frame: F,
  decode: (frame: F) => unknown,
  format: string,
): DecodedWatchEvent | undefined {
  try {
    return decode(frame) ?? NO_EVENT;
  } catch (error) {
    sink.malformed(new WatchLineError(framePrefix(frame), `not ${format}`, { cause: error }));
    return undefined;
  }
}
