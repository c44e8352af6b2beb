// Kubernetes' protobuf wire format for the built-in kinds the embedded server serves
// (k8s.io/apimachinery/pkg/runtime/serializer/protobuf): the 4-byte magic `k8s\0`, then a
// runtime.Unknown whose typeMeta names the kind and whose raw holds the kind's message. A watch
// streams metav1.WatchEvent messages, each after its 4-byte big-endian length, whose object.raw
// is the event's object in the wire format above.
//
// This module is loaded only when a request sends or asks for protobuf (content-negotiation.ts
// imports it lazily): the generated descriptors cost start time every JSON client would pay.

import { create, fromBinary, toBinary, type DescMessage } from '@bufbuild/protobuf';
import type { GenFile } from '@bufbuild/protobuf/codegenv2';
import { file_k8s_io_api_apps_v1_generated } from './generated/k8s.io/api/apps/v1/generated_pb.js';
import { file_k8s_io_api_authentication_v1_generated } from './generated/k8s.io/api/authentication/v1/generated_pb.js';
import { file_k8s_io_api_authorization_v1_generated } from './generated/k8s.io/api/authorization/v1/generated_pb.js';
import { file_k8s_io_api_coordination_v1_generated } from './generated/k8s.io/api/coordination/v1/generated_pb.js';
import { file_k8s_io_api_core_v1_generated } from './generated/k8s.io/api/core/v1/generated_pb.js';
import { file_k8s_io_api_events_v1_generated } from './generated/k8s.io/api/events/v1/generated_pb.js';
import { file_k8s_io_api_rbac_v1_generated } from './generated/k8s.io/api/rbac/v1/generated_pb.js';
import { file_k8s_io_apiextensions_apiserver_pkg_apis_apiextensions_v1_generated } from './generated/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/generated_pb.js';
import {
  file_k8s_io_apimachinery_pkg_apis_meta_v1_generated,
  WatchEventSchema,
} from './generated/k8s.io/apimachinery/pkg/apis/meta/v1/generated_pb.js';
import { UnknownSchema } from './generated/k8s.io/apimachinery/pkg/runtime/generated_pb.js';
import { jsonToMessage, messageToJson } from './proto-json.js';

/** `k8s\0`: what every protobuf body but a watch frame starts with. */
const MAGIC = Uint8Array.from([0x6b, 0x38, 0x73, 0x00]);

// The API group of each generated file; meta.k8s.io/v1's kinds (Status, DeleteOptions, ...) are
// found under any group, as kube-apiserver registers them in every group version.
const FILES: ReadonlyArray<readonly [string, GenFile]> = [
  ['', file_k8s_io_api_core_v1_generated],
  ['apps', file_k8s_io_api_apps_v1_generated],
  ['authentication.k8s.io', file_k8s_io_api_authentication_v1_generated],
  ['authorization.k8s.io', file_k8s_io_api_authorization_v1_generated],
  ['coordination.k8s.io', file_k8s_io_api_coordination_v1_generated],
  ['events.k8s.io', file_k8s_io_api_events_v1_generated],
  ['rbac.authorization.k8s.io', file_k8s_io_api_rbac_v1_generated],
  ['apiextensions.k8s.io', file_k8s_io_apiextensions_apiserver_pkg_apis_apiextensions_v1_generated],
  ['meta.k8s.io', file_k8s_io_apimachinery_pkg_apis_meta_v1_generated],
];
const MESSAGES = new Map<string, DescMessage>();
for (const [group, file] of FILES) for (const message of file.messages) MESSAGES.set(`${group}/${message.name}`, message);

/** The message of a kind in an apiVersion, or undefined for kinds not built in (custom resources). */
export function messageOf(apiVersion: string, kind: string): DescMessage | undefined {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return MESSAGES.get(`${group}/${kind}`) ?? MESSAGES.get(`meta.k8s.io/${kind}`);
}

/**
 * The JSON object of a protobuf request body, with its apiVersion and kind.
 *
 * @throws {Error} for a body without the magic, or one that does not decode, with kube-apiserver's
 * reason and the body's first bytes in hex. A plain Error: this module may be loaded apart from the
 * server's ApiStatusError class (a lazy import under a test runner's loader).
 */
export function decodeObject(body: Uint8Array): Record<string, unknown> {
  const unrecognized = (reason: string): Error => new Error(`${reason} (${hex(body)})`);
  if (body.length < MAGIC.length || !MAGIC.every((b, i) => body[i] === b)) {
    throw unrecognized(`provided data does not appear to be a protobuf message, expected prefix [${[...MAGIC].join(' ')}]`);
  }
  try {
    const unknown = fromBinary(UnknownSchema, body.subarray(MAGIC.length));
    const apiVersion = unknown.typeMeta?.apiVersion ?? '';
    const kind = unknown.typeMeta?.kind ?? '';
    const desc = messageOf(apiVersion, kind);
    if (desc === undefined) throw new Error(`no kind "${kind}" is registered for version "${apiVersion}"`);
    const object = messageToJson(desc, fromBinary(desc, unknown.raw ?? new Uint8Array())) as Record<string, unknown>;
    return { apiVersion, kind, ...object };
  } catch (e) {
    throw unrecognized((e as Error).message);
  }
}

/** The protobuf body of a JSON object, or undefined when its kind has no message (Table, custom resources). */
export function encodeObject(object: Record<string, unknown>): Uint8Array | undefined {
  const apiVersion = String(object['apiVersion'] ?? '');
  const kind = String(object['kind'] ?? '');
  const desc = messageOf(apiVersion, kind);
  if (desc === undefined) return undefined;
  const raw = toBinary(desc, jsonToMessage(desc, object));
  // Go's marshaller writes the empty contentEncoding and contentType too; clients ignore them.
  const unknown = create(UnknownSchema, { typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' });
  return concat(MAGIC, toBinary(UnknownSchema, unknown));
}

/** One watch frame (length, then WatchEvent) of a JSON watch line `{"type":...,"object":...}`. */
export function encodeWatchLine(line: string): Uint8Array {
  const event = JSON.parse(line) as { type: string; object: Record<string, unknown> };
  const raw = encodeObject(event.object);
  if (raw === undefined) throw new Error(`no protobuf message for ${String(event.object['kind'])}`);
  const frame = toBinary(WatchEventSchema, create(WatchEventSchema, { type: event.type, object: { raw } }));
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, frame.length);
  return concat(length, frame);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

// kube-apiserver quotes the body's first bytes in hex in its decoding errors.
function hex(body: Uint8Array): string {
  return Buffer.from(body.subarray(0, 50)).toString('hex');
}
