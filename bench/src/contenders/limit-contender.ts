import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { Contender, ContenderOptions } from './contender.js';

interface ParsedObject {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}

function serverUrl(kubeconfigPath: string): string {
  const match = /server: "([^"]+)"/.exec(readFileSync(kubeconfigPath, 'utf8'));
  if (match === null) throw new Error(`no server in ${kubeconfigPath}`);
  return match[1]!;
}

/**
 * The physical limit: read the same bytes, `JSON.parse` the list and each watch line, put the
 * object in a Map. No index, no events, no queue.
 */
export function limitContender(options: ContenderOptions): Contender {
  const base = `${serverUrl(options.kubeconfigPath)}/api/v1/namespaces/${options.namespace}/configmaps`;
  const objects = new Map<string, ParsedObject>();
  let callback: ((name: string) => void) | undefined;
  let request: http.ClientRequest | undefined;
  let stopped = false;
  let resourceVersion = '';

  // Pages as every real client does (kindex, client-go's pager): the server answers lists of up
  // to 250,000 objects in one page whatever the limit, larger ones by limit and continue.
  type ListPage = { metadata: { resourceVersion: string; continue?: string }; items: ParsedObject[] };
  const getPage = (continueToken: string | undefined): Promise<ListPage> =>
    new Promise((resolve, reject) => {
      http
        .get(`${base}?limit=500${continueToken === undefined ? '' : `&continue=${encodeURIComponent(continueToken)}`}`, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ListPage));
          res.on('error', reject);
        })
        .on('error', reject);
    });

  const list = async (): Promise<void> => {
    objects.clear();
    let continueToken: string | undefined;
    do {
      const page = await getPage(continueToken);
      for (const item of page.items) objects.set(`${item.metadata.namespace}/${item.metadata.name}`, item);
      resourceVersion = page.metadata.resourceVersion;
      continueToken = page.metadata.continue || undefined;
    } while (continueToken !== undefined);
  };

  const watch = (): void => {
    request = http.get(`${base}?watch=true&resourceVersion=${resourceVersion}`, (res) => {
      res.setEncoding('utf8');
      let rest = '';
      let expired = false;
      res.on('data', (text: string) => {
        let start = 0;
        let end = text.indexOf('\n');
        let buffered = rest;
        while (end !== -1) {
          const line = buffered + text.slice(start, end);
          buffered = '';
          const event = JSON.parse(line) as { type: string; object: ParsedObject & { code?: number } };
          if (event.type === 'ERROR') {
            expired = event.object.code === 410;
          } else {
            const key = `${event.object.metadata.namespace}/${event.object.metadata.name}`;
            if (event.type === 'DELETED') objects.delete(key);
            else objects.set(key, event.object);
            resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
            callback?.(event.object.metadata.name);
          }
          start = end + 1;
          end = text.indexOf('\n', start);
        }
        rest = buffered + text.slice(start);
      });
      res.on('end', () => {
        if (stopped) return;
        if (expired) void list().then(watch);
        else watch();
      });
    });
    request.on('error', () => undefined);
  };

  return {
    async start() {
      await list();
      watch();
    },
    size: () => objects.size,
    onEvent(cb) {
      callback = cb;
    },
    lookup: undefined,
    async stop() {
      stopped = true;
      request?.destroy();
    },
  };
}
