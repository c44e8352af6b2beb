import http from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { buildKubeRequest } from '../../client/internal/build-kube-request.js';
import { ApiRequestError, InactivityTimeoutError } from '../reflector-error.js';

/** An open GET: the response, and a watchdog that aborts it when nothing arrives for too long. */
export interface OpenRequest {
  readonly description: string;
  readonly response: http.IncomingMessage;
  /** Feeds the watchdog; call it for every chunk read from `response`. */
  touch(): void;
  /** Why the request was destroyed (watchdog or abort), if it was. */
  failure(): Error | undefined;
  /** Stops the watchdog and destroys the request; safe to call more than once. */
  close(): void;
}

/**
 * Sends a GET built by {@link buildKubeRequest} (the KubeConfig's current credentials, read for
 * this request) with Node's own http(s), so the body can be streamed as raw bytes. Resolves once
 * the headers arrive with status 200; rejects with {@link ApiRequestError} for any other status (the body's Status read into it).
 *
 * The inactivity watchdog runs from the moment the request is sent: a connection that goes
 * silent (no headers, no bytes) for `inactivityMs` is destroyed with {@link InactivityTimeoutError},
 * which surfaces as an `error` on the response (or as the rejection, before headers).
 */
export async function openGet(
  kubeConfig: KubeConfig,
  path: string,
  query: Readonly<Record<string, string | undefined>>,
  inactivityMs: number,
  signal: AbortSignal,
): Promise<OpenRequest> {
  const { url, options, transport, description } = await buildKubeRequest(kubeConfig, 'GET', path, query);
  signal.throwIfAborted();
  const request = transport.request(url, options);

  let lastActivity = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let failure: Error | undefined;
  const check = (): void => {
    const idle = Date.now() - lastActivity;
    if (idle >= inactivityMs) {
      timer = undefined;
      failure ??= new InactivityTimeoutError(description, inactivityMs);
      request.destroy(failure);
    } else {
      timer = setTimeout(check, inactivityMs - idle);
    }
  };
  // Re-arming on expiry instead of on every chunk keeps the hot path to one Date.now() per chunk.
  timer = setTimeout(check, inactivityMs);
  const touch = (): void => {
    lastActivity = Date.now();
  };
  const onAbort = (): void => {
    failure ??= signal.reason instanceof Error ? signal.reason : new Error('aborted');
    request.destroy(failure);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const close = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    signal.removeEventListener('abort', onAbort);
    request.destroy();
  };

  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', (error) => {
      close();
      reject(failure ?? error);
    });
    request.end();
  });
  // Once the response is there, its own 'error'/'close' report failures; keep one listener so a
  // late socket error is never an unhandled 'error' event.
  request.on('error', () => {});
  touch();
  const open: OpenRequest = { description, response, touch, failure: () => failure, close };
  if (response.statusCode === 200) return open;
  try {
    const text = await readBody(open);
    throw statusError(description, response, text);
  } finally {
    close();
  }
}

/** Reads a whole response body as text (bytes joined once, decoded once). */
export function readBody(open: OpenRequest): Promise<string> {
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
      resolve(Buffer.concat(chunks, length).toString('utf8'));
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

/** Builds an ApiRequestError from an error response, reading its Kubernetes Status if it has one. */
function statusError(description: string, response: http.IncomingMessage, text: string): ApiRequestError {
  const status = response.statusCode ?? 0;
  let reason: string | undefined;
  let message = response.statusMessage ?? http.STATUS_CODES[status] ?? 'error';
  try {
    const body = JSON.parse(text) as { reason?: unknown; message?: unknown };
    if (typeof body.reason === 'string') reason = body.reason;
    if (typeof body.message === 'string') message = body.message;
  } catch {
    if (text.length > 0) message = text.slice(0, 200);
  }
  return new ApiRequestError(description, status, reason, message, retryAfterSeconds(response.headers['retry-after']));
}

function retryAfterSeconds(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(header); // Retry-After may also be an HTTP date
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}
