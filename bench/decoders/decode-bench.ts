// Measures the candidate decoders on the bench's objects, before kindex adopts any:
// JSON.parse of the JSON text (utf8 decode of the Buffer included), cbor-x, cborg and cbor2 on
// the CBOR kube-apiserver writes (strings as byte strings, tag 55799 first) turned into the JSON
// shape, the same libraries on text-string CBOR (their best case, not what the server sends), and
// @bufbuild/protobuf on the protobuf form plus conversion to the JSON shape. Reports objects/s
// (median of interleaved rounds) for a list and for watch events one frame at a time, and the heap
// retained by the decoded list per object.
//
//   cd bench && npx --yes pnpm@10.34.8 decoders [-- --objects 100000 --events 20000 --rounds 5]
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { Decoder as CborXDecoder } from 'cbor-x';
import { decode as cborgDecode, Tokenizer, Token, Type, type DecodeOptions } from 'cborg';
import { decode as cbor2Decode } from 'cbor2';
import { configMap, primaryCount } from '../src/fixture/config-map-fixture.js';
import {
  ConfigMapListSchema,
  ConfigMapSchema,
} from '../../packages/testing/src/apiserver/negotiation/protobuf/generated/k8s.io/api/core/v1/generated_pb.js';
import { WatchEventSchema } from '../../packages/testing/src/apiserver/negotiation/protobuf/generated/k8s.io/apimachinery/pkg/apis/meta/v1/generated_pb.js';
import { UnknownSchema } from '../../packages/testing/src/apiserver/negotiation/protobuf/generated/k8s.io/apimachinery/pkg/runtime/generated_pb.js';
import { jsonToMessage, messageToJson } from '../../packages/testing/src/apiserver/negotiation/protobuf/proto-json.js';
import { cborItemEnd } from '../../packages/informer/src/client/internal/cbor-item-end.js';
import { cborCodec } from '../../packages/informer/src/client/cbor-codec.js';
import { kubeCbor, textCbor } from '../src/fixture/kube-cbor-fixture.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    objects: { type: 'string', default: '100000' },
    events: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
  },
});
const OBJECTS = Number(values.objects);
const EVENTS = Number(values.events);
const ROUNDS = Number(values.rounds);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc (the package script does)');

const utf8Text = new TextDecoder();
/** Byte strings to strings, Maps to plain objects: the JSON shape, for decoders that keep CBOR's types. */
function toJsonShape(value: unknown): unknown {
  if (value instanceof Uint8Array) return utf8Text.decode(value);
  if (value instanceof Map) {
    const object: Record<string, unknown> = {};
    for (const [k, v] of value) object[k instanceof Uint8Array ? utf8Text.decode(k) : String(k)] = toJsonShape(v);
    return object;
  }
  if (Array.isArray(value)) return value.map(toJsonShape);
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) object[key] = toJsonShape(object[key]);
  }
  return value;
}

// cborg reads byte strings as strings through its tokenizer, so maps get string keys directly.
class ByteStringsAsText extends Tokenizer {
  override next(): Token {
    const token = super.next();
    return Type.equals(token.type, Type.bytes)
      ? new Token(Type.string, utf8Text.decode(token.value as Uint8Array), token.encodedLength)
      : token;
  }
}
const cborgTags: DecodeOptions['tags'] = [];
cborgTags[55799] = (decodeInner: () => unknown) => decodeInner();
const cborgKube = (bytes: Uint8Array): unknown => cborgDecode(bytes, { tags: cborgTags, tokenizer: new ByteStringsAsText(bytes, {}) });
const cborgText = (bytes: Uint8Array): unknown => cborgDecode(bytes, { tags: cborgTags });
const scratch = new Map<Buffer, Buffer>();
/** A copy of `bytes` with text-string heads; the copy is made once, outside the timed loop. */
function rewritten(bytes: Buffer): Buffer {
  const copy = scratch.get(bytes) ?? Buffer.from(bytes);
  scratch.set(bytes, copy);
  copy.set(bytes);
  cborItemEnd(copy, 0, true);
  return copy;
}
const cborX = new CborXDecoder({ mapsAsObjects: true, useRecords: false });
await cborCodec.prepare!();
const cborXMaps = new CborXDecoder({ mapsAsObjects: false, useRecords: false });

function protobufList(bytes: Uint8Array): unknown {
  const unknown = fromBinary(UnknownSchema, bytes.subarray(4));
  const decoded = messageToJson(ConfigMapListSchema, fromBinary(ConfigMapListSchema, unknown.raw)) as { items: object[] };
  // Protobuf list items carry no TypeMeta; the JSON shape kindex caches has it.
  decoded.items = decoded.items.map((item) => ({ apiVersion: 'v1', kind: 'ConfigMap', ...item }));
  return { apiVersion: unknown.typeMeta?.apiVersion, kind: unknown.typeMeta?.kind, ...decoded };
}
function protobufEvent(bytes: Uint8Array): unknown {
  const event = fromBinary(WatchEventSchema, bytes.subarray(4));
  const unknown = fromBinary(UnknownSchema, event.object!.raw.subarray(4));
  const object = messageToJson(ConfigMapSchema, fromBinary(ConfigMapSchema, unknown.raw)) as object;
  return { type: event.type, object: { apiVersion: unknown.typeMeta?.apiVersion, kind: unknown.typeMeta?.kind, ...object } };
}

// The fixture: a ConfigMap list and MODIFIED events, in each wire form.
const primaries = primaryCount(OBJECTS);
const items = Array.from({ length: OBJECTS }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', ...configMap(i, primaries, 10 + i, 0) }));
const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: String(10 + OBJECTS) }, items };
const events = Array.from({ length: EVENTS }, (_, i) => ({
  type: 'MODIFIED',
  object: { apiVersion: 'v1', kind: 'ConfigMap', ...configMap(i % OBJECTS, primaries, 10 + OBJECTS + i, i + 1) },
}));
const MAGIC = Uint8Array.from([0x6b, 0x38, 0x73, 0x00]);
const protoObject = (kind: string, raw: Uint8Array): Uint8Array =>
  Buffer.concat([MAGIC, toBinary(UnknownSchema, create(UnknownSchema, { typeMeta: { apiVersion: 'v1', kind }, raw }))]);
const wire = {
  json: { list: Buffer.from(JSON.stringify(list)), events: events.map((e) => Buffer.from(JSON.stringify(e))) },
  kubeCbor: { list: kubeCbor(list), events: events.map(kubeCbor) },
  textCbor: { list: textCbor(list), events: events.map(textCbor) },
  protobuf: {
    list: protoObject('ConfigMapList', toBinary(ConfigMapListSchema, jsonToMessage(ConfigMapListSchema, list))),
    events: events.map((e) => {
      const raw = protoObject('ConfigMap', toBinary(ConfigMapSchema, jsonToMessage(ConfigMapSchema, e.object)));
      return Buffer.concat([new Uint8Array(4), toBinary(WatchEventSchema, create(WatchEventSchema, { type: e.type, object: { raw } }))]);
    }),
  },
};

interface Contender {
  readonly name: string;
  readonly form: keyof typeof wire;
  readonly decode: (bytes: Buffer) => unknown;
}
const contenders: Contender[] = [
  { name: 'JSON.parse (utf8 decode + parse)', form: 'json', decode: (b) => JSON.parse(b.toString('utf8')) },
  { name: 'cbor-x, kube CBOR + to JSON shape', form: 'kubeCbor', decode: (b) => toJsonShape(cborXMaps.decode(b)) },
  // Byte-string heads turned into text-string heads in place (one bit each), then cbor-x's fast
  // text path; the copy keeps the fixture's bytes for the next round.
  { name: 'cbor-x, kube CBOR, heads rewritten to text', form: 'kubeCbor', decode: (b) => cborX.decode(rewritten(b)) },
  // What @kindex/informer ships (wire: 'cbor'): cborg with a tokenizer that reads byte strings as text.
  { name: 'kindex cborCodec (cborg, byte strings read as text)', form: 'kubeCbor', decode: (b) => cborCodec.decodeObject(b) },
  { name: 'cborg, kube CBOR (bytes-as-text tokenizer)', form: 'kubeCbor', decode: cborgKube },
  { name: 'cborg, kube CBOR, heads rewritten to text', form: 'kubeCbor', decode: (b) => cborgText(rewritten(b)) },
  { name: 'cbor2, kube CBOR + to JSON shape', form: 'kubeCbor', decode: (b) => toJsonShape(cbor2Decode(b)) },
  { name: 'cbor-x, text-string CBOR', form: 'textCbor', decode: (b) => cborX.decode(b) },
  { name: 'cborg, text-string CBOR', form: 'textCbor', decode: cborgText },
  { name: 'cbor2, text-string CBOR', form: 'textCbor', decode: (b) => cbor2Decode(b) },
  {
    name: '@bufbuild/protobuf + to JSON shape',
    form: 'protobuf',
    decode: (b) => (b.length === wire.protobuf.list.length ? protobufList(b) : protobufEvent(b)),
  },
];

// Every decoder must give the JSON shape, or its speed means nothing (key order aside: cborg
// writes maps in its canonical order).
for (const c of contenders) {
  if (!isDeepStrictEqual(c.decode(wire[c.form].events[0]!), events[0]))
    throw new Error(`${c.name} does not decode an event to the JSON shape`);
  const decodedList = c.decode(wire[c.form].list) as { items: unknown[] };
  if (decodedList.items.length !== OBJECTS || !isDeepStrictEqual(decodedList.items[1], items[1])) {
    throw new Error(`${c.name} does not decode the list to the JSON shape`);
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const listRate = new Map<string, number[]>();
const eventRate = new Map<string, number[]>();
const retained = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  // Rotating the order spreads the machine's noise and GC debt over every contender.
  for (let k = 0; k < contenders.length; k++) {
    const c = contenders[(k + round) % contenders.length]!;
    gc();
    let start = process.hrtime.bigint();
    let held: unknown = c.decode(wire[c.form].list);
    let seconds = Number(process.hrtime.bigint() - start) / 1e9;
    listRate.set(c.name, [...(listRate.get(c.name) ?? []), OBJECTS / seconds]);
    held = undefined;
    gc();
    start = process.hrtime.bigint();
    for (const frame of wire[c.form].events) held = c.decode(frame);
    seconds = Number(process.hrtime.bigint() - start) / 1e9;
    eventRate.set(c.name, [...(eventRate.get(c.name) ?? []), EVENTS / seconds]);
    void held;
  }
}
for (const c of contenders) {
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  let held: unknown = c.decode(wire[c.form].list);
  gc();
  gc();
  retained.set(c.name, (process.memoryUsage().heapUsed - before) / OBJECTS);
  if ((held as { items: unknown[] }).items.length !== OBJECTS) throw new Error('lost the list');
  held = undefined;
}

const json = contenders[0]!.name;
const bytes = (form: keyof typeof wire): string => `${(wire[form].list.length / OBJECTS).toFixed(0)} B`;
console.log(
  `${OBJECTS} ConfigMaps in a list, ${EVENTS} MODIFIED events one frame each; medians of ${ROUNDS} interleaved rounds; Node ${process.version}`,
);
console.log('| decoder | wire B/object | list objects/s | vs JSON | watch events/s | vs JSON | retained heap B/object |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const c of contenders) {
  const l = median(listRate.get(c.name)!);
  const e = median(eventRate.get(c.name)!);
  const lr = l / median(listRate.get(json)!);
  const er = e / median(eventRate.get(json)!);
  console.log(
    `| ${c.name} | ${bytes(c.form)} | ${l.toFixed(0)} | ${lr.toFixed(2)}x | ${e.toFixed(0)} | ${er.toFixed(2)}x | ${retained.get(c.name)!.toFixed(0)} |`,
  );
}
