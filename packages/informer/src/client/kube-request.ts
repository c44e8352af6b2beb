/**
 * The HTTP layer: every request kindex sends itself (the reflector's lists and watches,
 * KubeClient's reads and writes, discovery, startup probes) goes through {@link openRequest}, over
 * the KubeConfig's current credentials, with the Accept header of its {@link KubeCodec}. A non-2xx
 * answer is a {@link KubeApiError} carrying the server's Status.
 *
 * @module
 */
import http from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { buildKubeRequest } from './internal/build-kube-request.js';
import { KubeApiError } from './kube-api-error.js';
import { InactivityTimeoutError } from './response-errors.js';
import type { KubeCodec, ResponseShape } from './codec.js';
import { jsonCodec } from './json-codec.js';

/** One request for {@link openRequest}. */
export interface KubeRequestSpec {
  /** The HTTP method. Defaults to `GET`. */
  readonly method?: string;
  /** The path under the cluster's server URL; it may carry a query of its own. */
  readonly path: string;
  /** Query parameters added to the path's; undefined values are left out. Defaults to none. */
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** What the answer holds, for the codec's Accept header. */
  readonly shape: ResponseShape;
  /** Decodes the answer (and an error's Status). Defaults to {@link jsonCodec}. */
  readonly codec?: KubeCodec;
  /** The request body, already encoded. Defaults to none. */
  readonly body?: Buffer;
  /** The body's Content-Type. Defaults to `application/json`. */
  readonly contentType?: string;
  /** Destroys the request when nothing arrives for this long. Defaults to no watchdog. */
  readonly inactivityMs?: number;
  /** Aborts the request. Defaults to none. */
  readonly signal?: AbortSignal;
}

/** An open request: the response, its codec, and a watchdog that aborts it when nothing arrives for too long. */
export interface OpenRequest {
  /** `METHOD /path?query`, for error messages. */
  readonly description: string;
  readonly response: http.IncomingMessage;
  /** Decodes this response. */
  readonly codec: KubeCodec;
  /** Feeds the watchdog; call it for every chunk read from `response`. A function value: it may be passed unbound (as a decoder's `onChunk`). */
  readonly touch: () => void;
  /** Why the request was destroyed (watchdog or abort), if it was. */
  failure(): Error | undefined;
  /** Stops the watchdog and destroys the request; safe to call more than once. */
  close(): void;
}

/**
 * Sends a request built by `buildKubeRequest` (the KubeConfig's current credentials, read for
 * this request) with Node's own http(s), so the body can be streamed as raw bytes. Resolves once
 * the headers arrive with a 2xx status; rejects with {@link KubeApiError} for any other status
 * (the body's Status read into it).
 *
 * With `inactivityMs`, the watchdog runs from the moment the request is sent: a connection that
 * goes silent (no headers, no bytes) for that long (seen within a quarter of it more) is destroyed
 * with {@link InactivityTimeoutError}, which surfaces as an `error` on the response (or as the rejection, before headers).
 */
export async function openRequest(kubeConfig: KubeConfig, spec: KubeRequestSpec): Promise<OpenRequest> {
  const codec = spec.codec ?? jsonCodec;
  if (codec.prepare !== undefined) await codec.prepare();
  const method = spec.method ?? 'GET';
  const headers: Record<string, string> = { accept: codec.accept(spec.shape) };
  if (spec.body !== undefined) {
    headers['content-type'] = spec.contentType ?? 'application/json';
    headers['content-length'] = String(spec.body.length);
  }
  const { url, options, transport, description } = await buildKubeRequest(kubeConfig, method, spec.path, spec.query, headers);
  const { signal, inactivityMs } = spec;
  signal?.throwIfAborted();
  const request = transport.request(url, options);

  // The watchdog reads the clock, not each chunk: a chunk only raises `touched` (a clock read per
  // chunk was about 35 ns on every watch event), and the check, every quarter of the timeout,
  // counts a chunk seen since the last check as activity at that check. It fires no earlier than
  // `inactivityMs` after the last chunk, and at most a quarter of it later.
  let lastActivity = Date.now();
  let touched = false;
  let timer: NodeJS.Timeout | undefined;
  let failure: Error | undefined;
  const period = Math.max(1, Math.ceil((inactivityMs ?? 0) / 4));
  const check = (): void => {
    const now = Date.now();
    if (touched) {
      touched = false;
      lastActivity = now;
    }
    const idle = now - lastActivity;
    if (idle >= inactivityMs!) {
      timer = undefined;
      failure ??= new InactivityTimeoutError(description, inactivityMs!);
      request.destroy(failure);
    } else {
      timer = setTimeout(check, Math.min(period, inactivityMs! - idle));
    }
  };
  if (inactivityMs !== undefined) timer = setTimeout(check, period);
  const touch = (): void => {
    touched = true;
  };
  const onAbort = (): void => {
    failure ??= signal!.reason instanceof Error ? signal!.reason : new Error('aborted');
    request.destroy(failure);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const close = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    signal?.removeEventListener('abort', onAbort);
    request.destroy();
  };

  let response: http.IncomingMessage;
  try {
    response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      request.once('response', resolve);
      request.once('error', (error) => {
        close();
        reject(failure ?? error);
      });
      request.end(spec.body);
    });
  } catch (error) {
    // A kept-alive connection the server closed as this request went out on it: nothing was
    // answered, so an idempotent request goes again, on another connection (the dead one is
    // gone from the pool; a fresh connection is never retried here).
    if (failure === undefined && request.reusedSocket && IDEMPOTENT_METHODS.has(method) && isConnectionReset(error)) {
      return openRequest(kubeConfig, spec);
    }
    throw error;
  }
  // Once the response is there, its own 'error'/'close' report failures; keep one listener so a
  // late socket error is never an unhandled 'error' event.
  request.on('error', () => {});
  touch();
  const open: OpenRequest = { description, response, codec: codecOf(response, codec), touch, failure: () => failure, close };
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return open;
  try {
    const body = await readBody(open);
    throw statusError(method, description, response, body, open.codec);
  } finally {
    close();
  }
}

/** Methods that may be sent twice with the effect of once (RFC 9110 9.2.2). */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

function isConnectionReset(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/** Sends a request and reads its whole answer: for everything but watches. */
export async function sendRequest(
  kubeConfig: KubeConfig,
  spec: KubeRequestSpec,
): Promise<{ readonly open: OpenRequest; readonly body: Buffer }> {
  const open = await openRequest(kubeConfig, spec);
  try {
    return { open, body: await readBody(open) };
  } finally {
    open.close();
  }
}

/** Reads a whole response body (bytes joined once). */
export function readBody(open: OpenRequest): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const { response } = open;
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer): void => {
      open.touch();
      chunks.push(chunk);
      length += chunk.length;
    };
    const onError = (error: Error): void => {
      detach();
      reject(open.failure() ?? error);
    };
    const onClose = (): void => {
      detach();
      if (!response.complete) reject(open.failure() ?? new Error(`${open.description}: connection closed mid-response`));
    };
    const onEnd = (): void => {
      detach();
      resolve(Buffer.concat(chunks, length));
    };
    // The listeners close over this promise, and the promise holds the body: left on a response
    // that outlives the read (a keep-alive socket), they kept every list body alive, about one
    // JSON copy of every cached object.
    const detach = (): void => {
      response.off('data', onData);
      response.off('end', onEnd);
      response.off('error', onError);
      response.off('close', onClose);
    };
    response.on('data', onData);
    response.once('end', onEnd);
    response.once('error', onError);
    response.once('close', onClose);
  });
}

/**
 * Decodes a whole answer of `shape` with the request's codec; an answer that is not of the
 * codec's type is an error naming the request and quoting the answer's start.
 */
export function decodeBody(open: OpenRequest, body: Buffer, shape: 'object' | 'list'): unknown {
  try {
    return shape === 'list' ? open.codec.decodeList(body) : open.codec.decodeObject(body);
  } catch (error) {
    const start = body.toString('utf8', 0, Math.min(body.length, 120));
    throw new Error(`${open.description}: the answer is not ${open.codec.mediaType} (${start})`, { cause: error });
  }
}

/**
 * The codec for what the server sent: the request's, unless the server answered JSON instead.
 * A codec that asks for another type with JSON as a fallback in its Accept header (as client-go
 * does for CBOR and protobuf) gets JSON from a server that does not speak its type.
 */
function codecOf(response: http.IncomingMessage, requested: KubeCodec): KubeCodec {
  const contentType = response.headers['content-type'];
  if (requested === jsonCodec || contentType === undefined) return requested;
  const semicolon = contentType.indexOf(';');
  const mediaType = (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return mediaType === jsonCodec.mediaType && requested.mediaType !== jsonCodec.mediaType ? jsonCodec : requested;
}

/**
 * The error of a watch ERROR event: the Status the server sent in the stream (a 410 Expired, a
 * 500), as the same {@link KubeApiError} a non-2xx answer is.
 */
export function watchError(open: OpenRequest, status: unknown): KubeApiError {
  const { code, reason, message } = (status ?? {}) as { code?: unknown; reason?: unknown; message?: unknown };
  const method = open.description.slice(0, open.description.indexOf(' '));
  return new KubeApiError(
    method,
    open.description.slice(method.length + 1),
    typeof code === 'number' ? code : 500,
    typeof reason === 'string' ? reason : undefined,
    typeof message === 'string' ? message : 'watch ERROR event',
  );
}

/** Builds a KubeApiError from an error response, reading its Kubernetes Status if it has one. */
function statusError(method: string, description: string, response: http.IncomingMessage, body: Buffer, codec: KubeCodec): KubeApiError {
  const status = response.statusCode ?? 0;
  let reason: string | undefined;
  let message = response.statusMessage ?? http.STATUS_CODES[status] ?? 'error';
  try {
    const decoded = codec.decodeObject(body) as { reason?: unknown; message?: unknown } | null;
    if (typeof decoded?.reason === 'string') reason = decoded.reason;
    if (typeof decoded?.message === 'string') message = decoded.message;
  } catch {
    if (body.length > 0) message = body.toString('utf8', 0, Math.min(body.length, 200));
  }
  const path = description.slice(method.length + 1);
  return new KubeApiError(method, path, status, reason, message, { retryAfterSeconds: retryAfterSeconds(response.headers['retry-after']) });
}

function retryAfterSeconds(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(header); // Retry-After may also be an HTTP date
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}
