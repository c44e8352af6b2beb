import { expect } from 'chai';
import { rawRequest } from '../helpers/raw-request.js';
import { createConfigMap, useConformanceFixture } from './conformance-fixture.js';

// The health endpoints and /metrics as kube-apiserver serves them. The lists of checks differ
// (the real server has etcd and post-start hooks); their format, ping and the status codes do not.
describe('conformance: health endpoints and metrics', () => {
  const fixture = useConformanceFixture();

  const get = (path: string) => rawRequest(fixture().kubeConfig, { path });

  it('/healthz, /livez and /readyz answer text/plain "ok"', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const response = await get(path);
      expect(response.status, path).to.equal(200);
      expect(response.text, path).to.equal('ok');
      expect(response.headers['content-type'], path).to.equal('text/plain; charset=utf-8');
      expect(response.headers['x-content-type-options'], path).to.equal('nosniff');
    }
  });

  it('?verbose lists each check as "[+]name ok" and ends with "<endpoint> check passed"', async () => {
    for (const endpoint of ['healthz', 'livez', 'readyz']) {
      const lines = (await get(`/${endpoint}?verbose`)).text.split('\n');
      expect(lines.pop(), 'a final newline').to.equal('');
      expect(lines.pop()).to.equal(`${endpoint} check passed`);
      expect(lines[0]).to.equal('[+]ping ok');
      for (const line of lines) expect(line).to.match(/^\[\+\][\w./-]+ ok$/);
    }
    const excluded = (await get('/readyz?verbose&exclude=ping')).text;
    expect(excluded.split('\n')[0]).to.equal('[+]ping excluded: ok');
  });

  it('/healthz/<check> runs one check, and an unknown check is a plain-text 404', async () => {
    const ping = await get('/healthz/ping');
    expect([ping.status, ping.text]).to.deep.equal([200, 'ok']);
    const unknown = await get('/healthz/no-such-check');
    expect([unknown.status, unknown.text, unknown.headers['content-type']]).to.deep.equal([
      404,
      '404 page not found\n',
      'text/plain; charset=utf-8',
    ]);
    expect((await get('/livez/no-such-check')).status).to.equal(404);
  });

  it('/metrics counts requests in apiserver_request_total by verb, resource, scope and code', async () => {
    const { core, namespace } = fixture();
    await createConfigMap(core, namespace);
    await core.listNamespacedConfigMap({ namespace });
    const response = await get('/metrics');
    expect(response.status).to.equal(200);
    expect(response.headers['content-type']).to.match(/^text\/plain; version=0\.0\.4; charset=utf-8/);
    expect(response.text).to.contain('# TYPE apiserver_request_total counter\n');
    const counter = (labels: string) => {
      const line = response.text.split('\n').find((l) => l.startsWith(`apiserver_request_total{${labels}} `));
      return line === undefined ? 0 : Number(line.split(' ').pop());
    };
    const created = counter(
      'code="201",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"',
    );
    const listed = counter(
      'code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="LIST",version="v1"',
    );
    expect(created, 'POST configmaps counted').to.be.at.least(1);
    expect(listed, 'LIST configmaps counted').to.be.at.least(1);
  });
});
