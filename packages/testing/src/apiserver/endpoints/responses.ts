// Writing answers: a verb's JSON in the negotiated media type (with its Warning headers), now
// or once a webhook answered, and errors as a Status (a stream already started just ends).

import type http from 'node:http';
import type { JsonResponse } from '../machinery/json-response.js';
import type { ResponseMedia } from '../negotiation/content-negotiation.js';
import { ApiStatusError } from '../storage/status-error.js';

/** Sends a verb's answer in the media type negotiated for `res`. */
export function sendJson(media: ResponseMedia, res: http.ServerResponse, r: JsonResponse): void {
  if (res.headersSent) return;
  const { body, contentType } = media.encode(res, r.body);
  const headers: http.OutgoingHttpHeaders = { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) };
  // One header per warning, quoted as Go's strconv.Quote does (RFC 7234 warn-text).
  if (r.warnings !== undefined && r.warnings.length > 0) headers['Warning'] = r.warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(r.status, headers);
  res.end(body);
}

/** Sends an error as a Status (500 InternalError for anything but an ApiStatusError). */
export function sendError(media: ResponseMedia, res: http.ServerResponse, e: unknown): void {
  const err =
    e instanceof ApiStatusError
      ? e
      : new ApiStatusError(500, 'InternalError', `Internal error occurred: ${(e as Error)?.message ?? String(e)}`);
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  sendJson(media, res, { status: err.code, body: JSON.stringify(err.toStatus()) });
}

/** Sends an answer that comes later (after admission webhooks or a conversion webhook). */
export function sendLater(media: ResponseMedia, res: http.ServerResponse, answer: Promise<JsonResponse>): void {
  answer.then(
    (r) => sendJson(media, res, r),
    (e: unknown) => sendError(media, res, e),
  );
}
