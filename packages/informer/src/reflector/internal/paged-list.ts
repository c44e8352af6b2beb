import type { KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kindex/core';
import { decodeBody, sendRequest } from '../../client/kube-request.js';
import { KubeApiError } from '../../client/kube-api-error.js';
import type { KubeCodec } from '../../client/codec.js';
import { prepareItem, type PrepareContext } from './prepare-object.js';

/** What {@link listPages} needs from its reflector. */
export interface PagedListContext<R extends KubernetesObject> {
  readonly kubeConfig: KubeConfig;
  readonly path: string;
  readonly selectors: Readonly<Record<string, string | undefined>>;
  readonly pageSize: number;
  /** Decodes the pages (JSON, metadata-only, CBOR). */
  readonly codec: KubeCodec;
  readonly inactivityMs: number;
  readonly signal: AbortSignal;
  readonly prepare: PrepareContext<R>;
  /** The client-side shard filter, applied to the raw object; undefined keeps everything. */
  readonly inShard: ((raw: unknown) => boolean) | undefined;
  /** Called with the size of each page as it arrives, before any filtering. */
  readonly onReceived: (count: number) => void;
  readonly report: (error: Error) => void;
}

/** Every object of a paginated list, prepared, with the list's resourceVersion. */
export interface PagedList<R> {
  readonly items: R[];
  readonly resourceVersion: string;
  /** True when every page came back with `metadata.shardInfo` (the server filtered). */
  readonly sharded: boolean;
}

interface Page {
  items: unknown[];
  resourceVersion: string;
  continueToken: string | undefined;
  sharded: boolean;
}

/** Lists every page; bad items are reported and skipped. */
export async function listPages<R extends KubernetesObject>(ctx: PagedListContext<R>): Promise<PagedList<R>> {
  const items: R[] = [];
  let continueToken: string | undefined;
  let limit: string | undefined = String(ctx.pageSize);
  let resourceVersion: string;
  let sharded = true;
  for (;;) {
    let page: Page;
    try {
      page = await getPage(ctx, { limit, continue: continueToken, ...ctx.selectors });
    } catch (error) {
      if (continueToken === undefined || !(error instanceof KubeApiError && error.expired)) throw error;
      // The snapshot behind the continue token is gone: start again with one unpaginated list,
      // which cannot expire halfway (client-go's pager does the same).
      ctx.report(error);
      items.length = 0;
      continueToken = undefined;
      limit = undefined;
      continue;
    }
    ctx.onReceived(page.items.length);
    sharded &&= page.sharded;
    for (const raw of page.items) {
      // Always checked, not only without shardInfo: cheap, and the view never depends on trusting the server.
      if (ctx.inShard !== undefined && !ctx.inShard(raw)) continue;
      try {
        items.push(prepareItem(raw, ctx.prepare));
      } catch (error) {
        ctx.report(error as Error);
      }
    }
    resourceVersion = page.resourceVersion;
    continueToken = page.continueToken;
    if (continueToken === undefined) break;
  }
  return { items, resourceVersion, sharded };
}

async function getPage<R extends KubernetesObject>(ctx: PagedListContext<R>, query: Record<string, string | undefined>): Promise<Page> {
  const { open, body: bytes } = await sendRequest(ctx.kubeConfig, {
    path: ctx.path,
    query,
    shape: 'list',
    codec: ctx.codec,
    inactivityMs: ctx.inactivityMs,
    signal: ctx.signal,
  });
  const body = decodeBody(open, bytes, 'list') as {
    items?: unknown;
    metadata?: { resourceVersion?: unknown; continue?: unknown; shardInfo?: unknown };
  } | null;
  const rv = body?.metadata?.resourceVersion;
  if (!Array.isArray(body?.items) || typeof rv !== 'string' || rv === '') {
    throw new Error(`${open.description}: not a list (items or metadata.resourceVersion missing)`);
  }
  const cont = body.metadata?.continue;
  return {
    items: body.items,
    resourceVersion: rv,
    continueToken: typeof cont === 'string' && cont !== '' ? cont : undefined,
    sharded: body.metadata?.shardInfo !== undefined && body.metadata.shardInfo !== null,
  };
}
