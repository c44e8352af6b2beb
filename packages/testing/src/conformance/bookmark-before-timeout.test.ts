import { expect } from 'chai';
import http from 'node:http';
import https from 'node:https';
import { configMapsPath, createConfigMap, useConformanceFixture } from './conformance-fixture.js';

// kube-apiserver's watch cache sends a watch that allows bookmarks a BOOKMARK about 2 s before
// its timeoutSeconds run out (within a second: its timers have one-second buckets, and an early
// dispatch can bring a second one), so that the client resumes from a fresh resourceVersion; the
// periodic ones come only every minute.
describe('conformance: bookmark before a watch times out', () => {
  const fixture = useConformanceFixture();

  async function watchLines(
    query: string,
  ): Promise<{ lines: { at: number; event: { type: string; object: { metadata?: { resourceVersion?: string } } } }[]; endedAt: number }> {
    const { kubeConfig, namespace } = fixture();
    const started = Date.now();
    const lines: { at: number; event: { type: string; object: { metadata?: { resourceVersion?: string } } } }[] = [];
    const cluster = kubeConfig.getCurrentCluster()!;
    const url = new URL(`${configMapsPath(namespace)}?watch=true&${query}`, cluster.server);
    const options: https.RequestOptions = { headers: {} };
    await kubeConfig.applyToHTTPSOptions(options);
    const request = url.protocol === 'https:' ? https.request : http.request;
    await new Promise<void>((resolve, reject) => {
      const req = request(url, options, (res) => {
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let nl: number;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(nl + 1);
            if (line !== '') lines.push({ at: Date.now() - started, event: JSON.parse(line) as (typeof lines)[number]['event'] });
          }
        });
        res.on('end', () => resolve());
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    return { lines, endedAt: Date.now() - started };
  }

  it('sends a BOOKMARK about 2 s before timeoutSeconds end, at the latest resourceVersion', async function () {
    this.timeout(60_000);
    const { core, namespace, server } = fixture();
    // kube-apiserver's pre-timeout bookmark is best effort: the cacher files a watcher for its
    // deadline - 2 s when it registers it, and a watcher registered after that moment (a loaded
    // server that took seconds to serve the watch) gets none (k8s.io/apiserver storage/cacher,
    // nextBookmarkTime). Seen once in a loaded CI run, so the real server gets three tries, each
    // held to every assertion below; the embedded server must send it on the first.
    const tries = server.flavor === 'real' ? 3 : 1;
    for (let attempt = 1; ; attempt++) {
      const list = await core.listNamespacedConfigMap({ namespace });
      const watching = watchLines(`timeoutSeconds=5&allowWatchBookmarks=true&resourceVersion=${list.metadata!.resourceVersion!}`);
      const created = await createConfigMap(core, namespace);
      const { lines, endedAt } = await watching;
      // The object, then the pre-timeout bookmark. kube-apiserver files watchers in one-second
      // buckets and may dispatch the bookmark up to a second before deadline - 2 s; the watcher is
      // then filed again for that moment and gets a second one (seen on the real server in CI).
      const types = lines.map((l) => l.event.type);
      if (types.length === 1 && attempt < tries) continue;
      expect(types.length === 2 || types.length === 3, `events: ${types.join(', ')}`).to.equal(true);
      expect(types).to.deep.equal(['ADDED', ...types.slice(1).map(() => 'BOOKMARK')]);
      for (const bookmark of lines.slice(1)) {
        expect(bookmark.at, 'about 2 s before the 5 s timeout').to.be.within(1500, 4500);
        expect(Number(bookmark.event.object.metadata!.resourceVersion)).to.be.at.least(Number(created.metadata!.resourceVersion));
      }
      expect(endedAt, 'the watch still runs its whole timeout').to.be.at.least(4500);
      return;
    }
  });

  it('sends none to a watch without allowWatchBookmarks', async function () {
    this.timeout(30_000);
    expect((await watchLines('timeoutSeconds=4')).lines).to.deep.equal([]);
  });
});
