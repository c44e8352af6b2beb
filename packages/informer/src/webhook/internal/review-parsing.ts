// Checks an AdmissionReview / ConversionReview body before any handler sees it: a malformed
// review is the caller's error (400), never a crash or a handler call with half a request.
import type { KubernetesObject } from '@kindex/core';
import type { AdmissionOperation, AdmissionRequest } from '../admission-review.js';

export class MalformedReviewError extends Error {
  override readonly name = 'MalformedReviewError';
}

const OPERATIONS: readonly string[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] satisfies AdmissionOperation[];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function field<T>(parent: Record<string, unknown>, path: string, name: string, ok: (v: unknown) => v is T, expected: string): T {
  const value = parent[name];
  if (!ok(value)) throw new MalformedReviewError(`${path}.${name} must be ${expected}, got ${JSON.stringify(value) ?? 'nothing'}`);
  return value;
}
const isString = (v: unknown): v is string => typeof v === 'string';
const isNonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';
const optional =
  <T>(ok: (v: unknown) => v is T) =>
  (v: unknown): v is T | undefined | null =>
    v === undefined || v === null || ok(v);

function review(body: unknown, apiVersion: string, kind: string): Record<string, unknown> {
  if (!isRecord(body)) throw new MalformedReviewError(`the body must be a JSON object (a ${apiVersion} ${kind})`);
  if (body.apiVersion !== apiVersion || body.kind !== kind) {
    throw new MalformedReviewError(`expected apiVersion ${apiVersion}, kind ${kind}; got ${String(body.apiVersion)} ${String(body.kind)}`);
  }
  return field(body, kind, 'request', isRecord, 'an object');
}

export function parseAdmissionReview(body: unknown): AdmissionRequest {
  const request = review(body, 'admission.k8s.io/v1', 'AdmissionReview');
  const at = 'request';
  const uid = field(request, at, 'uid', isNonEmpty, 'a non-empty string');
  const operation = field(request, at, 'operation', (v): v is AdmissionOperation => OPERATIONS.includes(v as string), OPERATIONS.join('|'));
  const kind = field(request, at, 'kind', isRecord, 'an object');
  for (const f of ['group', 'version', 'kind']) field(kind, `${at}.kind`, f, isString, 'a string');
  const resource = field(request, at, 'resource', isRecord, 'an object');
  for (const f of ['group', 'version', 'resource']) field(resource, `${at}.resource`, f, isString, 'a string');
  const userInfo = field(request, at, 'userInfo', isRecord, 'an object');
  field(userInfo, `${at}.userInfo`, 'username', optional(isString), 'a string');
  const object = field(request, at, 'object', optional(isRecord), 'an object');
  const oldObject = field(request, at, 'oldObject', optional(isRecord), 'an object');
  field(
    request,
    at,
    'dryRun',
    optional((v): v is boolean => typeof v === 'boolean'),
    'a boolean',
  );
  if (operation !== 'DELETE' && operation !== 'CONNECT' && !object)
    throw new MalformedReviewError(`${at}.object is required for ${operation}`);
  const { dryRun, ...rest } = request;
  return {
    ...(rest as Omit<AdmissionRequest, 'dryRun'>),
    uid,
    operation,
    userInfo: { ...userInfo, username: typeof userInfo.username === 'string' ? userInfo.username : '' },
    ...(object ? { object: object } : { object: undefined }),
    ...(oldObject ? { oldObject: oldObject } : { oldObject: undefined }),
    dryRun: dryRun === true,
  };
}

export interface ConversionRequest {
  readonly uid: string;
  readonly desiredAPIVersion: string;
  readonly objects: readonly KubernetesObject[];
}

export function parseConversionReview(body: unknown): ConversionRequest {
  const request = review(body, 'apiextensions.k8s.io/v1', 'ConversionReview');
  const uid = field(request, 'request', 'uid', isNonEmpty, 'a non-empty string');
  const desiredAPIVersion = field(
    request,
    'request',
    'desiredAPIVersion',
    (v): v is string => isNonEmpty(v) && v.includes('/'),
    'group/version',
  );
  const objects = field(request, 'request', 'objects', (v): v is unknown[] => Array.isArray(v), 'an array');
  objects.forEach((o, i) => {
    if (!isRecord(o) || !isNonEmpty(o.apiVersion) || !isNonEmpty(o.kind))
      throw new MalformedReviewError(`request.objects[${i}] must be an object with apiVersion and kind`);
  });
  return { uid, desiredAPIVersion, objects: objects as KubernetesObject[] };
}
