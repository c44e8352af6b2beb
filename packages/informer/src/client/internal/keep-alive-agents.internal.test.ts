// kindex's own requests keep their connections: sequential requests share one, an idle one is
// closed after IDLE_CONNECTION_MS (or the server's shorter keep-alive hint), a connection taken
// from the pool carries no idle timer (a watch may be silent), and a kept connection the server
// resets under a request is retried for idempotent methods only. TLS settings keeping
// connections apart (a rotated certificate presented) is pinned by credential-rotation.test.ts.
import { expect } from 'chai';
import { openRequest, sendRequest } from '../kube-request.js';
import { startHandServer, type HandServer } from './hand-server.js';
import { IDLE_CONNECTION_MS, httpAgent } from './keep-alive-agents.js';

const ok =
  (body = '{}') =>
  (_req: unknown, res: import('node:http').ServerResponse) => {
    res.setHeader('content-type', 'application/json');
    res.end(body);
  };

/** Idle-timer values of the pooled connections to `server` (none while they serve a request). */
function pooledTimeouts(server: HandServer): number[] {
  const port = new URL(server.kubeConfig.getCurrentCluster()!.server).port;
  return Object.entries(httpAgent.freeSockets)
    .filter(([name]) => name.includes(`:${port}:`))
    .flatMap(([, sockets]) => (sockets ?? []).map((socket) => socket.timeout ?? 0));
}

describe('keep-alive agents', () => {
  let server: HandServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends sequential requests over one connection', async () => {
    server = await startHandServer(ok());
    for (let i = 0; i < 5; i++) await sendRequest(server.kubeConfig, { path: '/api/v1/namespaces/default/configmaps/a', shape: 'object' });
    expect(server.connections()).to.equal(1);
  });

  it('opens a connection per concurrent request, then reuses them', async () => {
    server = await startHandServer(ok());
    const get = () => sendRequest(server!.kubeConfig, { path: '/api/v1/namespaces/default/configmaps/a', shape: 'object' });
    await Promise.all([get(), get(), get()]);
    await Promise.all([get(), get(), get()]);
    expect(server.connections()).to.equal(3);
  });

  it(`closes an idle connection after ${IDLE_CONNECTION_MS} ms, or the server's shorter keep-alive hint`, async () => {
    // keepAliveTimeout 0: the server announces no timeout and never closes idle connections.
    server = await startHandServer(ok(), { keepAliveTimeoutMs: 0 });
    await sendRequest(server.kubeConfig, { path: '/api/v1/namespaces/default/configmaps/a', shape: 'object' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(pooledTimeouts(server)).to.deep.equal([IDLE_CONNECTION_MS]);
    await server.close();
    // Node's default: 5 s announced, so the client lets go after 4 s.
    server = await startHandServer(ok());
    await sendRequest(server.kubeConfig, { path: '/api/v1/namespaces/default/configmaps/a', shape: 'object' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(pooledTimeouts(server)).to.deep.equal([4_000]);
  });

  it('gives a connection taken from the pool no idle timer while it serves a request', async () => {
    let release: (() => void) | undefined;
    server = await startHandServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url?.includes('watch=true')) {
        res.write('');
        release = () => res.end();
      } else res.end('{}');
    });
    await sendRequest(server.kubeConfig, { path: '/api/v1/namespaces/default/configmaps', shape: 'list' });
    const open = await openRequest(server.kubeConfig, {
      path: '/api/v1/namespaces/default/configmaps',
      query: { watch: 'true' },
      shape: 'watch',
    });
    expect(server.connections()).to.equal(1);
    expect(open.response.socket.timeout ?? 0).to.equal(0);
    release?.();
    open.close();
  });

  it('sends an idempotent request again when the server resets a kept connection under it, and not a create', async () => {
    const served = new WeakMap<object, number>();
    let requests = 0;
    server = await startHandServer((req, res) => {
      requests++;
      const count = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, count);
      // The second request on a connection finds it gone: reset, no answer.
      if (count === 2) {
        req.socket.destroy();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    const path = '/api/v1/namespaces/default/configmaps/a';
    await sendRequest(server.kubeConfig, { path, shape: 'object' });
    const { body } = await sendRequest(server.kubeConfig, { path, shape: 'object' });
    expect(body.toString()).to.equal('{"ok":true}');
    expect(requests).to.equal(3);
    expect(server.connections()).to.equal(2);

    const create = sendRequest(server.kubeConfig, {
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      shape: 'object',
      body: Buffer.from('{}'),
    });
    const error = await create.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as NodeJS.ErrnoException | undefined)?.code).to.equal('ECONNRESET');
    expect(requests).to.equal(4);
  });
});
