// A plain HTTPS webhook server for the admission and conversion conformance files: it listens on
// 127.0.0.1 with a self-signed certificate (its own CA bundle), so that the embedded server and a
// real kube-apiserver on this machine both reach it by `clientConfig.url`. Each path answers with
// a function of the review, and every review received is kept for the test to inspect.

import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from '../apiserver/server/self-signed-certificate.js';

/** The `request` of an AdmissionReview as received (fields read by the tests). */
export interface ReceivedReview {
  readonly uid: string;
  readonly kind: { group: string; version: string; kind: string };
  readonly resource: { group: string; version: string; resource: string };
  readonly subResource?: string;
  readonly requestKind?: { group: string; version: string; kind: string };
  readonly name?: string;
  readonly namespace?: string;
  readonly operation: string;
  readonly userInfo: { username: string; groups?: string[] };
  readonly object: Record<string, unknown> | null;
  readonly oldObject: Record<string, unknown> | null;
  readonly dryRun: boolean;
  readonly options?: Record<string, unknown>;
}

/** The `request` of a ConversionReview as received. */
export interface ReceivedConversion {
  readonly uid: string;
  readonly desiredAPIVersion: string;
  readonly objects: Record<string, unknown>[];
}

/** What a path answers: the `response` fields besides `uid` (added here), after a delay if it likes. */
export type ReviewAnswer<R = ReceivedReview> = (request: R) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A running test webhook server. */
export interface TestWebhookServer {
  /** `https://127.0.0.1:<port>` (or the `host` it was started on). */
  readonly url: string;
  /** The certificate, base64 PEM, for `caBundle`. */
  readonly caBundle: string;
  /** The reviews received on each path, in order (AdmissionReview requests; ConversionReview ones on conversion paths). */
  readonly received: Map<string, ReceivedReview[]>;
  /** The apiVersion of each review received on each path, in order. */
  readonly reviewVersions: Map<string, string[]>;
  /** Sets what `path` answers (allowed: true by default). */
  answer<R = ReceivedReview>(path: string, answer: ReviewAnswer<R>): void;
  close(): Promise<void>;
}

/** Where a test webhook server listens and which names its certificate is for. */
export interface TestWebhookServerOptions {
  /** The address to listen on (`url` names it). Defaults to 127.0.0.1. */
  readonly host?: string;
  /** DNS names the certificate is valid for besides localhost (a Service's `<name>.<namespace>.svc`). Defaults to none. */
  readonly dnsNames?: readonly string[];
}

/** Starts a webhook server on 127.0.0.1 (or `host`) with a fresh self-signed certificate. */
export async function startTestWebhookServer(options: TestWebhookServerOptions = {}): Promise<TestWebhookServer> {
  const host = options.host ?? '127.0.0.1';
  const certificate = selfSignedCertificate('kindex-test-webhook', options.dnsNames);
  const answers = new Map<string, ReviewAnswer<never>>();
  const received = new Map<string, ReceivedReview[]>();
  const reviewVersions = new Map<string, string[]>();
  const server: Server = createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://127.0.0.1').pathname;
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; kind: string; request: ReceivedReview };
      received.set(path, [...(received.get(path) ?? []), review.request]);
      reviewVersions.set(path, [...(reviewVersions.get(path) ?? []), review.apiVersion]);
      const answer = (answers.get(path) ?? (() => ({ allowed: true }))) as ReviewAnswer;
      void Promise.resolve(answer(review.request)).then((response) => {
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: review.kind, response: { uid: review.request.uid, ...response } }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    caBundle: Buffer.from(certificate.cert).toString('base64'),
    received,
    reviewVersions,
    answer: (path, answer) => void answers.set(path, answer),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSONPatch for a mutating webhook's answer, base64-encoded as AdmissionReview carries it. */
export function jsonPatch(operations: readonly Record<string, unknown>[]): { patchType: 'JSONPatch'; patch: string } {
  return { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(operations)).toString('base64') };
}
