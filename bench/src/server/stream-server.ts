import http from 'node:http';
import { once } from 'node:events';
import { pacedEventLine, wallClockMicros, type ListFixture } from '../fixture/config-map-fixture.js';
import { MetadataBodies, wantsMetadata } from './metadata-bodies.js';
import { writeBenchKubeconfig } from './bench-kubeconfig.js';

/** What the stream server answers to watches. */
export type WatchScript =
  /** Every watch gets the pre-generated MODIFIED events, then stays open. */
  | { readonly type: 'stream'; readonly chunks: readonly Buffer[] }
  /** The first watch gets a 410 Expired and ends; the next ones get `after`, then stay open. */
  | { readonly type: 'expire'; readonly expired: Buffer; readonly after: Buffer }
  /**
   * After the start signal, MODIFIED events over the `objects` listed ones at a steady `rate`
   * per second for `seconds`, each stamped with its send time; requests other than GET get 405.
   */
  | { readonly type: 'paced'; readonly objects: number; readonly rate: number; readonly seconds: number };

/**
 * The same list and watch events as protobuf (see `client-go/protobuf.go`), served to a client
 * that asks for `application/vnd.kubernetes.protobuf`, as kube-apiserver serves built-in kinds.
 */
export interface ProtobufFixture {
  readonly list?: Buffer;
  /** Length-delimited WatchEvent frames, in slices. */
  readonly watch?: readonly Buffer[];
}

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const CBOR = 'application/cbor';

/**
 * The same list and watch events as kube-apiserver's CBOR (see `fixture/kube-cbor-fixture.ts`),
 * served to a client whose first choice is `application/cbor`, as kube-apiserver with its
 * `CBORServingAndStorage` gate serves every kind, custom resources included.
 */
export type CborFixture = ProtobufFixture;

/** Server-side times (ms, `performance.now()`) of the last run, for the relist scenario. */
export interface StreamTimings {
  expiredAt?: number;
  relistAt?: number;
  rewatchAt?: number;
  /** Paced scenario: events written, and ms from the first to the last. */
  pacedSent?: number;
  pacedMs?: number;
  /** Requests other than GET (the start signal aside): a read-only client makes none. */
  writeRequests: number;
}

function gate(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A contender requests this path once synced, to start the watch events. */
export const START_PATH = '/bench/start';

const PATHS = new Set(['/api/v1/configmaps', '/api/v1/namespaces/bench/configmaps']);

/**
 * A purpose-built API server for ConfigMaps on 127.0.0.1: the same pre-generated list and watch
 * bytes for every contender, served as fast as the socket takes them. Lists of up to 250,000
 * objects come in one piece whatever `limit` says (one page for everyone); larger ones page by
 * `limit` and `continue` (see `ListFixture`). Label and field selectors are ignored.
 */
export class StreamServer {
  timings: StreamTimings = { writeRequests: 0 };
  #watches = 0;
  #startGate = gate();
  readonly #open = new Set<http.ServerResponse>();
  /** Open watches of a paced script: the one pacer writes each event to all of them. */
  readonly #pacedWatches = new Set<http.ServerResponse>();
  /** Bumped by `reset()`, so a previous run's pacer stops. */
  #run = 0;
  #pacing = false;
  /** The unpaged list, built on first request. */
  #whole: Buffer | undefined;
  /** Metadata-only bodies (`as=PartialObjectMetadata[List]`), converted on first request. */
  readonly #metadata = new MetadataBodies();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    readonly kubeconfigPath: string,
    private readonly fixtures: { readonly list: ListFixture; readonly watch: WatchScript },
  ) {}

  /** Starts a server on a free loopback port and writes a kubeconfig for it. */
  static async start(list: ListFixture, watch: WatchScript, protobuf: ProtobufFixture = {}, cbor: CborFixture = {}): Promise<StreamServer> {
    let self: StreamServer | undefined;
    const server = http.createServer((req, res) => self!.handle(req, res, list, watch, protobuf, cbor));
    server.keepAliveTimeout = 60_000;
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const url = `http://127.0.0.1:${port}`;
    const kubeconfigPath = writeBenchKubeconfig(url);
    self = new StreamServer(server, url, kubeconfigPath, { list, watch });
    return self;
  }

  /** Converts the metadata-only bodies now (the unpaged list and the watch script), so no contender's clock includes it. */
  prepareMetadata(): void {
    const { list, watch } = this.fixtures;
    if (list.sendableWhole) this.#metadata.list((this.#whole ??= list.whole()));
    if (watch.type === 'stream') this.#metadata.watch(watch.chunks);
    if (watch.type === 'expire') [watch.expired, watch.after].forEach((chunk) => this.#metadata.lines(chunk));
  }

  /** Forgets the previous run (timings, watch count) before the next contender. */
  reset(): void {
    this.timings = { writeRequests: 0 };
    this.#watches = 0;
    this.#startGate = gate();
    this.#run++;
    this.#pacing = false;
  }

  async close(): Promise<void> {
    for (const res of this.#open) res.destroy();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }

  private handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    list: ListFixture,
    watch: WatchScript,
    protobufFixture: ProtobufFixture,
    cborFixture: CborFixture,
  ): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === START_PATH) {
      this.#startGate.resolve();
      res.writeHead(204);
      res.end();
      return;
    }
    if (req.method !== 'GET') {
      this.timings.writeRequests++;
      if (watch.type === 'paced') {
        // The paced scenario measures a read-only controller: a write must show, not succeed.
        res.writeHead(405, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'MethodNotAllowed', code: 405 }));
        return;
      }
    }
    if (!PATHS.has(url.pathname)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
      return;
    }
    const isWatch = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
    // Watch-list (sendInitialEvents): the list as ADDED events and the end bookmark, then the watch script, in JSON.
    const watchList = isWatch && url.searchParams.get('sendInitialEvents') === 'true';
    // Content negotiation as kube-apiserver does it for built-in kinds: protobuf to a client that
    // accepts it, CBOR to one that asks for it first, where this scenario has their bytes; JSON otherwise.
    // Metadata first: client-go's metadata client lists protobuf first, but this server has only JSON metadata.
    const accept = req.headers.accept ?? '';
    const metadata = wantsMetadata(accept);
    const wantsCbor = accept.startsWith(CBOR) && !accept.startsWith(`${CBOR}-`);
    const [binary, media, watchMedia] = metadata
      ? [{}, '', '']
      : accept.includes(PROTOBUF)
        ? [protobufFixture, PROTOBUF, `${PROTOBUF};stream=watch`]
        : wantsCbor
          ? [cborFixture, CBOR, 'application/cbor-seq']
          : [{}, '', ''];
    const binaryWatch = isWatch && !watchList && watch.type === 'stream' ? binary.watch : undefined;
    if (!isWatch && binary.list !== undefined) {
      res.writeHead(200, { 'content-type': media, 'content-length': binary.list.length });
      res.end(binary.list);
      return;
    }
    if (!isWatch) {
      if (this.timings.expiredAt !== undefined && this.timings.relistAt === undefined) this.timings.relistAt = performance.now();
      const limit = Number(url.searchParams.get('limit') ?? '') || undefined;
      let body: Buffer;
      if (list.paged(limit)) body = list.page(Number(url.searchParams.get('continue') ?? '0') || 0, limit!);
      else if (list.sendableWhole) body = this.#whole ??= list.whole();
      else {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'BadRequest',
            code: 400,
            message: `a list of ${list.objects} objects needs limit and continue`,
          }),
        );
        return;
      }
      if (metadata) body = this.#metadata.list(body);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
      return;
    }
    this.#watches++;
    res.writeHead(200, {
      'content-type': binaryWatch !== undefined ? watchMedia : 'application/json',
      'transfer-encoding': 'chunked',
    });
    res.flushHeaders();
    this.#open.add(res);
    res.on('close', () => this.#open.delete(res));
    if (watchList) void this.writeAll(res, list.initialEvents()).then(() => this.followScript(res, watch, binaryWatch, metadata));
    else this.followScript(res, watch, binaryWatch, metadata);
  }

  /** What a watch gets once open (after the initial events, for a watch-list). */
  private followScript(res: http.ServerResponse, watch: WatchScript, binaryWatch: readonly Buffer[] | undefined, metadata: boolean): void {
    if (res.destroyed) return;
    if (watch.type === 'expire') {
      if (this.#watches === 1) {
        this.timings.expiredAt = performance.now();
        res.end(metadata ? this.#metadata.lines(watch.expired) : watch.expired);
        return;
      }
      if (this.timings.rewatchAt === undefined) this.timings.rewatchAt = performance.now();
      res.write(metadata ? this.#metadata.lines(watch.after) : watch.after);
      return;
    }
    if (watch.type === 'paced') {
      this.#pacedWatches.add(res);
      res.on('close', () => this.#pacedWatches.delete(res));
      const run = this.#run;
      void this.#startGate.promise.then(() => {
        if (this.#pacing || run !== this.#run) return;
        this.#pacing = true;
        this.pace(watch, run);
      });
      return;
    }
    // Events wait for the contender's start signal, so none is processed before its clock starts.
    const chunks = binaryWatch ?? (metadata ? this.#metadata.watch(watch.chunks) : watch.chunks);
    void this.#startGate.promise.then(() => this.writeAll(res, chunks));
  }

  private async writeAll(res: http.ServerResponse, chunks: Iterable<Buffer>): Promise<void> {
    // A closed response never drains: wake the loop so it can see `destroyed` and stop.
    res.once('close', () => res.emit('drain'));
    for (const chunk of chunks) {
      if (res.destroyed) return;
      if (!res.write(chunk)) await once(res, 'drain');
    }
  }

  private pace(script: Extract<WatchScript, { type: 'paced' }>, run: number): void {
    const total = Math.round(script.rate * script.seconds);
    const start = performance.now();
    let sent = 0;
    const tick = (): void => {
      if (run !== this.#run) return;
      // setTimeout has ms resolution and fires late under load: catch up with the events due
      // by now, each stamped when written (a backlog in the socket then counts as latency).
      const due = Math.min(total, Math.floor(((performance.now() - start) * script.rate) / 1000) + 1);
      for (; sent < due; sent++) {
        const line = pacedEventLine(script.objects, sent, wallClockMicros());
        for (const res of this.#pacedWatches) if (!res.destroyed) res.write(line);
      }
      this.timings.pacedSent = sent;
      this.timings.pacedMs = performance.now() - start;
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  }
}
