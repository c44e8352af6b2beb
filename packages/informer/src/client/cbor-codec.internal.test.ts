// The CBOR codec on the bytes kube-apiserver writes (byte strings, tag 55799, shortest floats),
// byte by byte where framing matters; the servers' side is in reflector-cbor.test.ts.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { cborCodec } from './cbor-codec.js';
import { cborItemEnd } from './internal/cbor-item-end.js';
import type { WatchFrameSink } from './codec.js';
import type { WatchLineError } from './response-errors.js';

/** A byte string head and its UTF-8 bytes, as kube-apiserver writes every string. */
function bstr(text: string): number[] {
  const bytes = [...Buffer.from(text)];
  if (bytes.length < 24) return [0x40 | bytes.length, ...bytes];
  return [0x58, bytes.length, ...bytes];
}

const TAG = [0xd9, 0xd9, 0xf7];
// apimachinery's own test vector (serializer/cbor/cbor_test.go): 55799({'apiVersion': 'v', 'kind': 'k', 'metadata': {'name': 'foo'}})
const VECTOR = Buffer.from('d9d9f7a34a61706956657273696f6e4176446b696e64416b486d65746164617461a1446e616d6543666f6f', 'hex');

function widget(name: string): number[] {
  return [
    ...TAG,
    0xa3,
    ...bstr('kind'),
    ...bstr('Widget'),
    ...bstr('metadata'),
    0xa1,
    ...bstr('name'),
    ...bstr(name),
    ...bstr('spec'),
    0xa8,
    ...[...bstr('half'), 0xf9, 0x3e, 0x00], // 1.5 as a float16
    ...[...bstr('double'), 0xfb, 0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a], // 0.1
    ...[...bstr('big'), 0x1b, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00], // 2^40
    ...[...bstr('neg'), 0x38, 0x63], // -100
    ...[...bstr('flags'), 0x83, 0xf5, 0xf4, 0xf6], // [true, false, null]
    ...[...bstr('raw'), 0xd6, 0x43, 0x01, 0x02, 0xff], // 22(h'0102ff'): Go's []byte, base64 in JSON
    ...[...bstr('text'), 0x63, 0x61, 0x62, 0x63], // a text string, as clients may send
    ...[...bstr('utf8'), ...bstr('héllo ✓')],
  ];
}

const WIDGET = {
  kind: 'Widget',
  metadata: { name: 'w' },
  spec: { half: 1.5, double: 0.1, big: 2 ** 40, neg: -100, flags: [true, false, null], raw: 'AQL/', text: 'abc', utf8: 'héllo ✓' },
};

function event(type: string, name: string): number[] {
  return [...TAG, 0xa2, ...bstr('type'), ...bstr(type), ...bstr('object'), ...widget(name)];
}

function collect(): { sink: WatchFrameSink; frames: [unknown, unknown][]; errors: WatchLineError[] } {
  const frames: [unknown, unknown][] = [];
  const errors: WatchLineError[] = [];
  return { sink: { frame: (type, object) => frames.push([type, object]), malformed: (error) => errors.push(error) }, frames, errors };
}

describe('cborCodec', () => {
  // Requests await it before they are sent; these tests decode without a request.
  before(() => cborCodec.prepare!());

  it('asks for CBOR with JSON as the fallback, as client-go does', () => {
    for (const shape of ['object', 'list', 'watch'] as const)
      expect(cborCodec.accept(shape)).to.equal('application/cbor;q=1, application/json;q=0.9');
  });

  it("decodes apimachinery's test vector and kube-apiserver's byte strings, floats, integers and []byte into the JSON shape", () => {
    expect(cborCodec.decodeObject(Buffer.from(VECTOR))).to.deep.equal({ apiVersion: 'v', kind: 'k', metadata: { name: 'foo' } });
    const decoded = cborCodec.decodeObject(Buffer.from(widget('w'))) as typeof WIDGET;
    expect(decoded).to.deep.equal(WIDGET);
    expect(Object.getPrototypeOf(decoded.metadata)).to.equal(Object.prototype);
    expect(typeof decoded.spec.big).to.equal('number');
  });

  it('reads integers beyond 2^53 as the nearest number, as JSON.parse reads their JSON', () => {
    const uint64 = [0x1b, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01]; // 2^60 + 1
    const negint64 = [0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]; // -2^63
    const decoded = cborCodec.decodeObject(Buffer.from([0xa2, ...bstr('big'), ...uint64, ...bstr('low'), ...negint64]));
    expect(decoded).to.deep.equal(JSON.parse('{"big":1152921504606846977,"low":-9223372036854775808}'));
  });

  it('rejects a truncated body and bytes after the item', () => {
    const whole = widget('w');
    expect(() => cborCodec.decodeList(Buffer.from(whole.slice(0, -3)))).to.throw(/truncated/);
    expect(() => cborCodec.decodeList(Buffer.from([...whole, 0x00]))).to.throw(/1 bytes after the CBOR item/);
  });

  it('cuts an application/cbor-seq watch into events, whatever the chunking', () => {
    const stream = [...event('ADDED', 'a'), ...event('MODIFIED', 'b'), ...event('DELETED', 'c')];
    for (const size of [1, 2, 7, 64, stream.length]) {
      const { sink, frames, errors } = collect();
      const decoder = cborCodec.watchDecoder(sink);
      for (let i = 0; i < stream.length; i += size) decoder.push(Buffer.from(stream.slice(i, i + size)));
      decoder.flush();
      expect(errors, `chunks of ${size}`).to.deep.equal([]);
      expect(frames.map(([type, object]) => `${String(type)} ${(object as typeof WIDGET).metadata.name}`)).to.deep.equal([
        'ADDED a',
        'MODIFIED b',
        'DELETED c',
      ]);
      expect(frames[0]![1]).to.deep.equal({ ...WIDGET, metadata: { name: 'a' } });
    }
  });

  it('reports an item cut off at the end, and stops reading a sequence it cannot frame', () => {
    const cut = collect();
    const decoder = cborCodec.watchDecoder(cut.sink);
    decoder.push(Buffer.from([...event('ADDED', 'a'), ...event('ADDED', 'b').slice(0, 10)]));
    decoder.flush();
    expect(cut.frames).to.have.length(1);
    expect(cut.errors).to.have.length(1);
    // The quoted start is the bytes as they came: byte string heads (0x44 "type", 0x45 "ADDED").
    expect(cut.errors[0]!.message).to.equal('watch line "d9d9f7a2447479706545": CBOR item cut off at the end of the watch');

    const bad = collect();
    const broken = cborCodec.watchDecoder(bad.sink);
    broken.push(Buffer.from([...event('ADDED', 'a'), 0x1c, ...event('ADDED', 'b')])); // 0x1c: reserved additional information
    broken.push(Buffer.from(event('ADDED', 'c')));
    expect(bad.frames).to.have.length(1);
    expect(bad.errors).to.have.length(1);
    expect(bad.errors[0]!.message).to.match(/not CBOR/);
    expect((bad.errors[0]!.cause as Error).message).to.match(/reserved additional information 28/);
  });
});

describe('cborCodec loading', () => {
  // Every script V8 compiles, ESM or CommonJS, is reported to an inspector session: evidence of a
  // load that does not depend on how cborg is reached (a static import, import() or require).
  const CHILD = `
    import { Session } from 'node:inspector';
    const session = new Session();
    session.connect();
    const urls = [];
    session.on('Debugger.scriptParsed', ({ params }) => urls.push(params.url));
    session.post('Debugger.enable');
    const loaded = () => urls.some((url) => url.includes('/node_modules/cborg/'));
    await import('@kindex/informer');
    const afterEntry = loaded();
    const { cborCodec } = await import(${JSON.stringify(new URL('./cbor-codec.ts', import.meta.url).href)});
    let refused = false;
    try { cborCodec.decodeObject(Buffer.from('a0', 'hex')); } catch { refused = true; }
    await cborCodec.prepare();
    const decoded = cborCodec.decodeObject(Buffer.from('a0', 'hex'));
    console.log(JSON.stringify({ afterEntry, refused, decoded, afterPrepare: loaded() }));
  `;

  it('loads cborg when a CBOR request prepares the codec, not with the package entry', async () => {
    const packageDir = fileURLToPath(new URL('../..', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
      cwd: packageDir,
    });
    expect(JSON.parse(stdout)).to.deep.equal({ afterEntry: false, refused: true, decoded: {}, afterPrepare: true });
  });
});

describe('cborItemEnd', () => {
  it('finds the end of definite, indefinite and nested items, and -1 before it', () => {
    expect(cborItemEnd(Uint8Array.from([0x18, 0x64]), 0)).to.equal(2);
    expect(cborItemEnd(Uint8Array.from([0x9f, 0x01, 0xa1, 0x41, 0x61, 0x02, 0xff, 0x00]), 0)).to.equal(7);
    expect(cborItemEnd(Uint8Array.from([0x5f, 0x41, 0x61, 0x41, 0x62, 0xff]), 0)).to.equal(6);
    expect(cborItemEnd(Uint8Array.from([0x82, 0x01]), 0)).to.equal(-1);
    expect(cborItemEnd(Uint8Array.from([0x59, 0x01]), 0)).to.equal(-1);
    expect(() => cborItemEnd(Uint8Array.from([0xff]), 0)).to.throw(/break code outside an indefinite-length item/);
  });

  it('turns byte string heads into text string heads, but not those tagged as Go []byte', () => {
    const bytes = Uint8Array.from([0xa2, 0x41, 0x61, 0x41, 0x62, 0x41, 0x63, 0xd6, 0x41, 0x64]);
    expect(cborItemEnd(bytes, 0, true)).to.equal(bytes.length);
    expect([...bytes]).to.deep.equal([0xa2, 0x61, 0x61, 0x61, 0x62, 0x61, 0x63, 0xd6, 0x41, 0x64]);
  });
});
