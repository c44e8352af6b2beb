// Content negotiation as kube-apiserver does it: which media type a request body may have, which
// media type answers a request (its Accept header), and the 406 and 415 answers when none fits.
//
// Built-in kinds are served in JSON, YAML and protobuf (application/vnd.kubernetes.protobuf);
// custom resources in JSON and YAML. Watches stream JSON or protobuf, never YAML. CBOR is off, as
// in kube-apiserver 1.36 without its CBOR feature gates: a CBOR body is 415, CBOR asked for is 406.
// A clause asking for a conversion (`as=`) counts only where kube-apiserver makes it: Table in
// JSON or YAML, PartialObjectMetadata[List] in any type (protobuf for custom resources too); any
// other `as=` is skipped, and a 406 listing the served types when no clause is left.
// With the server's `cborServingAndStorage` option, as with kube-apiserver's CBORServingAndStorage
// gate, every kind is also served in CBOR (kube-cbor.ts), watches as `application/cbor-seq`, and
// CBOR bodies are read.
//
// The protobuf codec (protobuf/kube-protobuf.ts) is imported on the first protobuf request only,
// so that JSON clients do not pay the generated descriptors' load time.

import type { ServerResponse } from 'node:http';
import { stringify as toYaml } from 'yaml';
import { ApiStatusError, badRequest } from '../storage/status-error.js';
import { clauseParams, partialMetadataOfClause } from './partial-object-metadata.js';
import { decodeCbor, encodeCbor, encodeCborWatchLine } from './kube-cbor.js';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';
export const JSON_MEDIA = 'application/json';
export const YAML_MEDIA = 'application/yaml';
export const CBOR = 'application/cbor';
/** What a CBOR watch answers: a CBOR sequence (RFC 8742), one event an item. Not accepted in Accept. */
export const CBOR_SEQ = 'application/cbor-seq';

/** The media type of an answer. */
export type AnswerMedia = typeof JSON_MEDIA | typeof YAML_MEDIA | typeof PROTOBUF | typeof CBOR;

/** The protobuf codec, loaded on first use. */
export type ProtobufCodec = typeof import('./protobuf/kube-protobuf.js');

let codec: Promise<ProtobufCodec> | undefined;

/** Loads the protobuf codec once (the generated messages take a few tens of milliseconds to load). */
export function loadProtobufCodec(): Promise<ProtobufCodec> {
  codec ??= import('./protobuf/kube-protobuf.js');
  return codec;
}

/** The media types kube-apiserver lists in its 406 and 415 messages: CBOR last, with its gate on. */
function served(cbor: boolean | undefined): string {
  return [JSON_MEDIA, YAML_MEDIA, PROTOBUF, ...(cbor === true ? [CBOR] : [])].join(', ');
}

/** The body media types kube-apiserver decodes, for its 415 message (the same list for custom resources). */
export function unsupportedMediaType(cbor = false): ApiStatusError {
  return new ApiStatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${served(cbor)}`,
  );
}

/** What a request is, as far as negotiation cares. */
export interface NegotiationTarget {
  /** A custom resource: no protobuf. */
  readonly custom: boolean;
  /** A watch: no YAML. */
  readonly watch: boolean;
  /** CBOR is served (kube-apiserver's CBORServingAndStorage gate). Defaults to false. */
  readonly cbor?: boolean;
}

/** A 406 and the media type kube-apiserver writes it in. */
export class NotAcceptableError extends ApiStatusError {
  readonly answerMedia: AnswerMedia;

  constructor(message: string, answerMedia: AnswerMedia, emptyDetails: boolean) {
    super(406, 'NotAcceptable', message, emptyDetails ? {} : undefined);
    this.answerMedia = answerMedia;
  }
}

interface Clause {
  readonly media: string;
  readonly q: number;
  /** Whether the clause asks for a conversion (`as=`) kube-apiserver does not make: it is skipped. */
  readonly refusedConversion: boolean;
  /** Whether it asks for PartialObjectMetadata(List), which custom resources serve in protobuf too. */
  readonly partial: boolean;
}

function clauses(accept: string): Clause[] {
  const parsed = accept.split(',').map((text): Clause => {
    const media = (text.split(';')[0] ?? '').trim();
    const params = clauseParams(text);
    const q = params.get('q');
    const as = params.get('as');
    const partial = partialMetadataOfClause(params) !== undefined;
    // As RequestScope.AllowsMediaTypeTransform: Table in JSON or YAML, metadata in any type, nothing else.
    const table = as === 'Table' && params.get('g') === 'meta.k8s.io' && (params.get('v') === 'v1' || params.get('v') === 'v1beta1');
    // Aggregated discovery's own conversion is the discovery handler's to judge (aggregated-discovery.ts).
    const discovery = as === 'APIGroupDiscoveryList' && params.get('g') === 'apidiscovery.k8s.io';
    const refusedConversion = as !== undefined && !partial && !discovery && !(table && media.toLowerCase() !== PROTOBUF);
    return { media: media.toLowerCase(), q: q === undefined ? 1 : Number(q), refusedConversion, partial };
  });
  // Highest quality first; equal qualities keep their order.
  return parsed.filter((c) => c.media !== '').sort((a, b) => b.q - a.q);
}

/**
 * The media type to answer in, or a {@link NotAcceptableError}. A JSON clause asking for another
 * representation (`as=Table`) is JSON here; table-output.ts builds the Table.
 */
export function negotiateAnswer(accept: string | undefined, target: NegotiationTarget): AnswerMedia {
  if (accept === undefined || accept.trim() === '') return JSON_MEDIA;
  const asked = clauses(accept);
  for (const { media, refusedConversion, partial } of asked) {
    if (refusedConversion) continue;
    if (media === '*/*' || media === JSON_MEDIA) return JSON_MEDIA;
    if (media === YAML_MEDIA && !target.watch) return YAML_MEDIA;
    if (media === PROTOBUF && (!target.custom || partial)) return PROTOBUF;
    if (media === CBOR && target.cbor === true) return CBOR;
  }
  const SERVED = served(target.cbor);
  const names = asked.map((c) => c.media);
  if (target.custom) {
    // kube-apiserver writes this one in protobuf when protobuf was asked for, although it refused it.
    return fail(`only the following media types are accepted: ${SERVED}`, names.includes(PROTOBUF) ? PROTOBUF : JSON_MEDIA, false);
  }
  // Built-in routes check Accept against what they produce before the handler runs (go-restful).
  if (!names.some((m) => m === JSON_MEDIA || m === YAML_MEDIA || m === PROTOBUF)) {
    return fail(`406: Not Acceptable\n\nAvailable representations: ${SERVED}`, JSON_MEDIA, true);
  }
  // A served type asking for a conversion the server does not make (`as=Foo`, a wrong g or v).
  if (asked.some((c) => c.refusedConversion)) return fail(`only the following media types are accepted: ${SERVED}`, JSON_MEDIA, false);
  const cborWatch = target.cbor === true ? `, ${CBOR_SEQ}` : '';
  return fail(
    `only the following media types are accepted: ${JSON_MEDIA};stream=watch, ${PROTOBUF};stream=watch${cborWatch}`,
    YAML_MEDIA,
    false,
  );
}

function fail(message: string, answerMedia: AnswerMedia, emptyDetails: boolean): never {
  throw new NotAcceptableError(message, answerMedia, emptyDetails);
}

// As sigs.k8s.io/yaml writes: keys sorted, sequences not indented, and strings a YAML 1.1 reader
// would take for timestamps or booleans quoted.
const YAML_OPTIONS = { sortMapEntries: true, indentSeq: false, version: '1.1' } as const;

/** An answer's body in its media type; protobuf needs the codec loaded, and kinds without a message stay JSON. */
export function encodeAnswer(
  json: string,
  media: AnswerMedia,
  protobuf: ProtobufCodec | undefined,
): { readonly body: string | Uint8Array; readonly contentType: string } {
  if (media === YAML_MEDIA) return { body: toYaml(JSON.parse(json), YAML_OPTIONS), contentType: YAML_MEDIA };
  if (media === CBOR) return { body: encodeCbor(JSON.parse(json)), contentType: CBOR };
  if (media === PROTOBUF && protobuf !== undefined) {
    const bytes = protobuf.encodeObject(JSON.parse(json) as Record<string, unknown>);
    if (bytes !== undefined) return { body: bytes, contentType: PROTOBUF };
  }
  return { body: json, contentType: JSON_MEDIA };
}

/**
 * The answer media type of each response in flight, and the protobuf codec once a request needed
 * it: the embedded server negotiates once per request and encodes every answer, errors included.
 */
export class ResponseMedia {
  readonly #media = new WeakMap<ServerResponse, AnswerMedia>();
  #protobuf: ProtobufCodec | undefined;
  /** CBOR is served and read (kube-apiserver's CBORServingAndStorage gate). */
  cbor = false;

  /** Negotiates `res`'s media type; a 406 is thrown after its own media type is recorded. */
  async negotiate(res: ServerResponse, accept: string | undefined, target: NegotiationTarget): Promise<void> {
    let media: AnswerMedia;
    try {
      media = negotiateAnswer(accept, { ...target, cbor: this.cbor });
    } catch (e) {
      if (e instanceof NotAcceptableError) await this.#use(res, e.answerMedia);
      throw e;
    }
    await this.#use(res, media);
  }

  async #use(res: ServerResponse, media: AnswerMedia): Promise<void> {
    if (media === PROTOBUF) this.#protobuf ??= await loadProtobufCodec();
    this.#media.set(res, media);
  }

  /** The body and content type of a JSON answer in `res`'s media type (JSON when none was negotiated). */
  encode(res: ServerResponse, json: string): { readonly body: string | Uint8Array; readonly contentType: string } {
    return encodeAnswer(json, this.#media.get(res) ?? JSON_MEDIA, this.#protobuf);
  }

  /** The content type and line transform of a watch answered in `res`'s media type. */
  watch(res: ServerResponse, convert: ((line: string) => string) | undefined): WatchEncoding {
    const protobuf = this.#protobuf;
    if (this.#media.get(res) === CBOR) {
      return { contentType: CBOR_SEQ, transform: (line) => encodeCborWatchLine(convert === undefined ? line : convert(line)) };
    }
    if (this.#media.get(res) !== PROTOBUF || protobuf === undefined) return { contentType: JSON_MEDIA, transform: convert };
    return {
      contentType: `${PROTOBUF};stream=watch`,
      transform: (line) => protobuf.encodeWatchLine(convert === undefined ? line : convert(line)),
    };
  }

  /**
   * The JSON text of a protobuf or CBOR request body, for the decoders every other body goes through.
   *
   * @param kind - the kind the path takes, named in decoding errors.
   * @param media - the body's media type, {@link PROTOBUF} or {@link CBOR}.
   * @throws {ApiStatusError} 415 for protobuf for a custom resource (no protobuf message), 400 for a body that does not decode.
   */
  async decodeBody(body: Uint8Array, kind: string, custom: boolean, media: string): Promise<string> {
    if (media === CBOR) {
      try {
        return JSON.stringify(decodeCbor(body));
      } catch (e) {
        throw badRequest(
          `the object provided is unrecognized (must be of type ${kind}): ${(e as Error).message} (${Buffer.from(body.subarray(0, 50)).toString('hex')})`,
        );
      }
    }
    if (custom) throw unsupportedMediaType(this.cbor);
    this.#protobuf ??= await loadProtobufCodec();
    try {
      return JSON.stringify(this.#protobuf.decodeObject(body));
    } catch (e) {
      // kube-apiserver's wording for a body it cannot decode.
      throw badRequest(`the object provided is unrecognized (must be of type ${kind}): ${(e as Error).message}`);
    }
  }
}

/** How a watch's lines are written. */
export interface WatchEncoding {
  readonly contentType: string;
  readonly transform: ((line: string) => string | Uint8Array) | undefined;
}
