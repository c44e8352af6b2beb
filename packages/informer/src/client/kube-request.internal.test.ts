// The HTTP layer's codec seam: the Accept header comes from the request's codec, and the codec
// decodes objects, lists, Status bodies and watch frames. A codec for a made-up media type
// (`key=value` text, one watch event a `;`-terminated frame) stands in for CBOR or
// metadata-only decoding, which will plug in the same way.
import type { IncomingHttpHeaders } from 'node:http';
import { expect } from 'chai';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeCodec, ResponseShape, WatchFrameSink } from './codec.js';
import { jsonCodec } from './json-codec.js';
import { decodeBody, openRequest, sendRequest } from './kube-request.js';
import { KubeApiError } from './kube-api-error.js';
import { WatchLineError } from './response-errors.js';
import { startHandServer, type HandServer } from './internal/hand-server.js';

/** `a=1,b=x` into `{ a: '1', b: 'x' }`; a body without `=` is not of this type. */
function decodePairs(text: string): Record<string, string> {
  if (!text.includes('=')) throw new SyntaxError(`not key=value: ${text}`);
  return Object.fromEntries(text.split(',').map((pair) => pair.split('=') as [string, string]));
}

const pairsCodec: KubeCodec = {
  mediaType: 'application/x-kindex-pairs',
  accept: (shape: ResponseShape) => `application/x-kindex-pairs;shape=${shape}`,
  decodeObject: (body) => decodePairs(body.toString('utf8')),
  decodeList: (body) => ({ items: body.toString('utf8').split('|').map(decodePairs) }),
  watchDecoder(sink: WatchFrameSink) {
    let pending = '';
    const frames = (final: boolean): void => {
      const parts = pending.split(';');
      pending = final ? '' : parts.pop()!;
      for (const frame of parts.filter((p) => p !== '')) {
        try {
          const { type, ...object } = decodePairs(frame);
          sink.frame(type, object, frame);
        } catch (error) {
          sink.malformed(new WatchLineError(frame, 'not key=value', { cause: error }));
        }
      }
    };
    return {
      push: (chunk) => {
        pending += chunk.toString('utf8');
        frames(false);
      },
      flush: () => frames(true),
    };
  },
};

describe('openRequest codec seam', () => {
  let server: HandServer;
  let kubeConfig: KubeConfig;
  const accepted: Array<IncomingHttpHeaders['accept']> = [];

  before(async () => {
    server = await startHandServer((request, response) => {
      accepted.push(request.headers.accept);
      const url = new URL(request.url ?? '/', 'http://x');
      const type = { 'content-type': 'application/x-kindex-pairs' };
      if (url.pathname.startsWith('/api/v1/json/')) response.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"a"}');
      else if (url.pathname.endsWith('/missing')) response.writeHead(404, type).end('reason=NotFound,message=no such thing');
      else if (url.searchParams.get('watch') === 'true') {
        // Frames cut across chunks, and one bad frame in the middle.
        response.writeHead(200, type);
        response.write('type=ADDED,name=a;type=MOD');
        setTimeout(() => response.end('IFIED,name=a;garbage;type=DELETED,name=a'), 20);
      } else if (url.pathname.endsWith('/things')) response.writeHead(200, type).end('name=a|name=b');
      else response.writeHead(200, type).end('name=a,colour=red');
    });
    kubeConfig = server.kubeConfig;
  });
  beforeEach(() => accepted.splice(0));
  after(() => server.close());

  it('asks with the codec Accept header of each shape and decodes objects and lists with it', async () => {
    const one = await sendRequest(kubeConfig, { path: '/api/v1/things/a', shape: 'object', codec: pairsCodec });
    expect(decodeBody(one.open, one.body, 'object')).to.deep.equal({ name: 'a', colour: 'red' });
    const list = await sendRequest(kubeConfig, { path: '/api/v1/things', shape: 'list', codec: pairsCodec });
    expect(decodeBody(list.open, list.body, 'list')).to.deep.equal({ items: [{ name: 'a' }, { name: 'b' }] });
    expect(accepted).to.deep.equal(['application/x-kindex-pairs;shape=object', 'application/x-kindex-pairs;shape=list']);
  });

  it('decodes an error Status with the codec into a KubeApiError', async () => {
    const error = await sendRequest(kubeConfig, { path: '/api/v1/things/missing', shape: 'object', codec: pairsCodec }).catch(
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(KubeApiError).and.include({ status: 404, reason: 'NotFound', request: 'GET /api/v1/things/missing' });
    expect((error as Error).message).to.equal('GET /api/v1/things/missing: 404 NotFound: no such thing');
  });

  it('cuts and decodes watch frames with the codec, in order, across chunks, reporting a bad frame and going on', async () => {
    const open = await openRequest(kubeConfig, { path: '/api/v1/things', query: { watch: 'true' }, shape: 'watch', codec: pairsCodec });
    const seen: string[] = [];
    const decoder = open.codec.watchDecoder({
      frame: (type, object) => seen.push(`${String(type)} ${(object as { name: string }).name}`),
      malformed: (error) => seen.push(`bad ${error.linePrefix}`),
    });
    await new Promise<void>((resolve) => {
      open.response.on('data', (chunk: Buffer) => decoder.push(chunk));
      open.response.once('end', () => {
        decoder.flush();
        resolve();
      });
    });
    open.close();
    expect(seen).to.deep.equal(['ADDED a', 'MODIFIED a', 'bad garbage', 'DELETED a']);
    expect(accepted).to.deep.equal(['application/x-kindex-pairs;shape=watch']);
  });

  it('decodes with the JSON codec when the server answers JSON to another codec', async () => {
    const answer = await sendRequest(kubeConfig, { path: '/api/v1/json/a', shape: 'object', codec: pairsCodec });
    expect(answer.open.codec).to.equal(jsonCodec);
    expect(decodeBody(answer.open, answer.body, 'object')).to.deep.equal({ name: 'a' });
  });

  it('sends Accept: application/json by default and names the request when an answer is not of the codec type', async () => {
    const answer = await sendRequest(kubeConfig, { path: '/api/v1/things/a', shape: 'object' });
    expect(answer.open.codec).to.equal(jsonCodec);
    expect(accepted).to.deep.equal(['application/json']);
    expect(() => decodeBody(answer.open, answer.body, 'object')).to.throw(
      'GET /api/v1/things/a: the answer is not application/json (name=a,colour=red)',
    );
  });
});
