// The metadata-only codec: what it asks for per shape, and what it hands on whatever the server
// answered (converted PartialObjectMetadata, or whole objects from a server that ignores `as=`).
import { expect } from 'chai';
import type { StoreDelta } from '@kindex/core';
import { eventually } from '@kindex/testing';
import { Kinds, metadataOnly } from '../index.js';
import { metadataCodec } from './metadata-codec.js';
import { WatchLineError } from './response-errors.js';
import { ScriptedReflector, configMap, configMapList, sendJson, startWatch } from '../reflector/internal/scripted-server.js';

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const partial = (name: string) => ({
  kind: 'PartialObjectMetadata',
  apiVersion: 'meta.k8s.io/v1',
  metadata: { name, resourceVersion: '1' },
});

describe('metadataCodec', () => {
  it("asks for PartialObjectMetadataList for lists and PartialObjectMetadata for objects and watches, JSON as the fallback (client-go's metadata client)", () => {
    expect(metadataCodec.accept('list')).to.equal('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json');
    for (const shape of ['object', 'watch'] as const) {
      expect(metadataCodec.accept(shape)).to.equal('application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json');
    }
  });

  it('hands on metadata alone, without the PartialObjectMetadata kind, and the same for whole objects', () => {
    expect(metadataCodec.decodeObject(json(partial('a')))).to.deep.equal({ metadata: { name: 'a', resourceVersion: '1' } });
    expect(metadataCodec.decodeObject(json(configMap('b', '2', { big: 'x' })))).to.deep.equal({
      metadata: { name: 'b', namespace: 'ns', resourceVersion: '2', uid: 'uid-b' },
    });
  });

  it('keeps a Status whole, for the error it reports', () => {
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, code: 404, reason: 'NotFound', message: 'gone' };
    expect(metadataCodec.decodeObject(json(status))).to.deep.equal(status);
  });

  it("reads an empty list's items: null as no items, and keeps the list metadata", () => {
    const empty = { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '7' }, items: null };
    expect(metadataCodec.decodeList(json(empty))).to.deep.include({ metadata: { resourceVersion: '7' }, items: [] });
    const full = configMapList('8', [configMap('a', '5', { big: 'x' })], 'next');
    expect(metadataCodec.decodeList(json(full))).to.deep.include({
      metadata: { resourceVersion: '8', continue: 'next' },
      items: [{ metadata: { name: 'a', namespace: 'ns', resourceVersion: '5', uid: 'uid-a' } }],
    });
  });

  it('reduces ADDED, MODIFIED and DELETED objects to metadata; ERROR and BOOKMARK objects pass as sent; bad lines are reported', () => {
    const frames: [unknown, unknown][] = [];
    const malformed: WatchLineError[] = [];
    const decoder = metadataCodec.watchDecoder({
      frame: (type, object) => frames.push([type, object]),
      malformed: (e) => malformed.push(e),
    });
    const bookmark = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '9' } };
    const error = { kind: 'Status', apiVersion: 'v1', code: 410, reason: 'Expired', metadata: {} };
    const lines = [
      { type: 'ADDED', object: partial('a') },
      { type: 'MODIFIED', object: configMap('a', '3', { big: 'x' }) },
      { type: 'BOOKMARK', object: bookmark },
      { type: 'ERROR', object: error },
    ];
    decoder.push(Buffer.from(`${lines.map((l) => JSON.stringify(l)).join('\n')}\nnot json\n`));
    decoder.flush();
    expect(frames).to.deep.equal([
      ['ADDED', { metadata: { name: 'a', resourceVersion: '1' } }],
      ['MODIFIED', { metadata: { name: 'a', namespace: 'ns', resourceVersion: '3', uid: 'uid-a' } }],
      ['BOOKMARK', bookmark],
      ['ERROR', error],
    ]);
    expect(malformed).to.have.length(1);
  });
});

describe('Reflector of a metadata-only kind, against a server that ignores as= (scripted wire)', () => {
  const scripted = new ScriptedReflector();
  afterEach(() => scripted.close());

  it("caches metadata only, with the resource's kind and apiVersion", async () => {
    const { reflector } = await scripted.open(
      (_req, res, i) => {
        if (i === 0) sendJson(res, 200, configMapList('10', [configMap('a', '5', { big: 'x' })]));
        else if (i === 1) startWatch(res, [{ type: 'ADDED', object: configMap('b', '11', { big: 'y' }) }]);
      },
      {
        type: metadataOnly(Kinds.ConfigMap),
        namespace: 'ns',
        initialState: 'list', // the script answers a list, then a watch
        watchTimeoutSeconds: 60,
      },
    );
    const deltas: StoreDelta[] = [];
    reflector.deltas$.subscribe((d) => deltas.push(d));
    await reflector.start();
    await eventually(() => expect(reflector.list()).to.have.length(2));
    for (const object of reflector.list()) {
      expect(Object.keys(object)).to.deep.equal(['kind', 'apiVersion', 'metadata']);
      expect(object).to.include({ kind: 'ConfigMap', apiVersion: 'v1' });
    }
    expect(deltas.map((d) => d.type)).to.deep.equal(['create', 'create']);
  });
});
