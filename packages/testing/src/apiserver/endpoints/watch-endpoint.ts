// GET with watch=true: opens a stream on the watch hub with the request's selectors, start
// resourceVersion, timeout, bookmarks and initial events, in the negotiated media type (rows as
// Tables for `kubectl get --watch`, PartialObjectMetadata for metadata-only clients).

import type http from 'node:http';
import { partialMetadataOf, partialMetadataWatchLine } from '../negotiation/partial-object-metadata.js';
import { tableVersionOf, tableWatchTransform } from '../negotiation/table-output.js';
import type { ResourceRequest } from '../registry/resource-request.js';
import { selectorsOf } from '../registry/verb-get-list.js';
import { ApiStatusError, badRequest } from '../storage/status-error.js';
import { errorEventLine } from '../watch/watch-hub.js';
import { printerOf, type EndpointContext } from './endpoint-context.js';

/**
 * Opens a watch answering `res`. `convert` rewrites each event line (events.k8s.io/v1);
 * `convertLater` does it asynchronously (a CRD conversion webhook).
 */
export function openWatch(
  ctx: EndpointContext,
  request: ResourceRequest,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  convert?: (line: string) => string,
  convertLater?: (line: string) => Promise<string>,
): void {
  const q = request.query;
  const { labels, fields, shards } = selectorsOf(ctx.storage, request);
  const rvText = q.get('resourceVersion');
  let fromRv: number | undefined;
  if (rvText !== null && rvText !== '' && rvText !== '0') {
    fromRv = Number(rvText);
    if (!/^\d+$/.test(rvText)) throw badRequest(`invalid resource version: ${rvText}`);
  }
  const timeoutText = q.get('timeoutSeconds');
  // 0 means "the server's default", which here is no timeout.
  const timeoutMs = timeoutText === null || timeoutText === '' || timeoutText === '0' ? undefined : Number(timeoutText) * 1000;
  if (timeoutMs !== undefined && !(timeoutMs >= 0)) throw badRequest(`invalid timeoutSeconds: ${timeoutText}`);
  // A watch-list without allowWatchBookmarks is valid (it then gets no initial-events-end bookmark).
  const sendInitialEvents = q.get('sendInitialEvents') === 'true';
  // `kubectl get --watch` asks for its rows as Tables.
  const tableVersion = tableVersionOf(req.headers.accept);
  const partial = partialMetadataOf(req.headers.accept);
  if (partial?.kind === 'PartialObjectMetadataList') {
    // kube-apiserver opens the stream, fails to convert the first event to a list and ends it empty.
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    res.end();
    return;
  }
  const toPartial = partial === undefined ? undefined : partialMetadataWatchLine(partial.version);
  const encoding = ctx.media.watch(
    res,
    toPartial === undefined ? convert : convert === undefined ? toPartial : (line) => toPartial(convert(line)),
  );
  req.socket.setNoDelay(true);
  res.writeHead(200, { 'Content-Type': encoding.contentType, 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  try {
    ctx.hub.open(
      {
        type: request.type,
        version: request.version,
        namespace: request.namespace,
        labels,
        fields,
        ...(shards === undefined ? {} : { shards: shards.selector }),
        bookmarks: q.get('allowWatchBookmarks') === 'true',
        timeoutMs,
        sendInitialEvents,
        ...(convertLater === undefined ? {} : { convertLater }),
        ...(tableVersion === undefined
          ? encoding.transform === undefined
            ? {}
            : { transform: encoding.transform }
          : { transform: tableWatchTransform(tableVersion, () => printerOf(ctx, request.type, request.version)) }),
      },
      res,
      fromRv,
    );
  } catch (e) {
    if (!(e instanceof ApiStatusError)) throw e;
    // Like the watch cache: the stream opens, reports the error as an event, and ends.
    const line = errorEventLine(e.toStatus());
    res.end(encoding.transform === undefined ? line : encoding.transform(line));
  }
}
