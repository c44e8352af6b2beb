// Reading a request body: at most maxBodyBytes (413 beyond), in a media type the server decodes
// (415 otherwise), decoded only once the path says which kind it must be, so that decoding errors
// name that kind as kube-apiserver's do.

import type http from 'node:http';
import { parse as parseYaml } from 'yaml';
import { CBOR, PROTOBUF, type ResponseMedia, unsupportedMediaType } from '../negotiation/content-negotiation.js';
import { ApiStatusError, badRequest } from '../storage/status-error.js';

// Request bodies the server decodes; a missing Content-Type is read as JSON, as client-go sends.
const BODY_MEDIA_TYPES = new Set(['', 'application/json', 'application/yaml', 'application/apply-patch+yaml']);

/** A request body read but not yet decoded: decoding errors name the kind the path expects. */
export interface RawBody {
  readonly text: string;
  readonly media: string;
  readonly patch: boolean;
  /** A protobuf body, decoded to JSON text once its kind is known. */
  readonly bytes?: Buffer;
}

/** Reads the body of `req`; undefined when it has none. */
export async function readBody(req: http.IncomingMessage, maxBodyBytes: number, media: ResponseMedia): Promise<RawBody | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes) {
      throw new ApiStatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${maxBodyBytes}`);
    }
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const bytes = Buffer.concat(chunks);
  // Protobuf is for whole objects: a protobuf PATCH gets the 415 below, as any non-patch media type.
  if ((type === PROTOBUF || (type === CBOR && media.cbor)) && req.method !== 'PATCH') return { text: '', media: type, patch: false, bytes };
  if (!BODY_MEDIA_TYPES.has(type) && !(req.method === 'PATCH' && type.endsWith('+json'))) throw unsupportedMediaType(media.cbor);
  return { text: bytes.toString('utf8'), media: type, patch: req.method === 'PATCH' };
}

/** Decodes a JSON or YAML body, with kube-apiserver's wording when it cannot. */
export function parseBody(raw: RawBody, kind: string): unknown {
  try {
    return raw.media.includes('yaml') ? parseYaml(raw.text) : JSON.parse(raw.text);
  } catch (e) {
    const reason = (e as Error).message.split('\n')[0];
    if (raw.patch) throw badRequest(`error decoding patch: ${reason}`);
    // kube-apiserver's wording for a body it cannot decode.
    throw badRequest(
      `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${reason} (${raw.text.slice(0, 100)})`,
    );
  }
}
