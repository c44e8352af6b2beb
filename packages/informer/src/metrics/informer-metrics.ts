import { Counter, Gauge, type Registry } from 'prom-client';
import type { InformerRegistry } from '../cache/informer-registry.js';
import type { SharedInformer } from '../cache/shared-informer.js';

type InformerLabel = 'resource' | 'namespace' | 'selector' | 'cluster';

/**
 * The `kindex_informer_*` series: what each shared informer of the observed registries holds
 * and how its list/watch fares. All are read from the informers when scraped (their stores,
 * counters and reflector health), so an informer costs nothing per event beyond its own counts.
 *
 * Labels: `resource` (`plural.group`, `plural` for the core group), `namespace` (empty for all
 * namespaces or cluster-scoped kinds) and `selector` (label and field selectors, empty if none).
 * Counters restart with the informer: a series whose informer was released and created again
 * starts from zero, which Prometheus' `rate()` reads as a counter reset.
 *
 * @example
 * ```ts
 * import { InformerRegistry } from '@kindex/informer';
 * import { InformerMetrics } from '@kindex/informer/internal';
 * import { Registry } from 'prom-client';
 *
 * const informers = new InformerRegistry();
 * const registry = new Registry();
 * new InformerMetrics(registry).observe(informers);
 * console.log(await registry.metrics());
 * ```
 */
export class InformerMetrics {
  readonly #registries = new Set<InformerRegistry>();

  constructor(registry: Registry) {
    const registers = [registry];
    const labelNames = ['resource', 'namespace', 'selector', 'cluster'] as const;
    const each = (visit: (informer: SharedInformer, labels: Record<InformerLabel, string>) => void): void => {
      for (const r of this.#registries) for (const informer of r.informers()) visit(informer, labelsOf(informer));
    };
    new Gauge({
      name: 'kindex_informer_objects',
      help: 'Objects held in the informer cache',
      labelNames,
      registers,
      collect() {
        this.reset();
        each((i, l) => this.set(l, i.store.size));
      },
    });
    new Counter({
      name: 'kindex_informer_events_total',
      help: 'Cache changes applied by the informer, by type (added, updated, deleted); the initial list counts as added',
      labelNames: [...labelNames, 'type'],
      registers,
      collect() {
        this.reset();
        each((i, l) => {
          const s = i.stats;
          this.inc({ ...l, type: 'added' }, s.added);
          this.inc({ ...l, type: 'updated' }, s.updated);
          this.inc({ ...l, type: 'deleted' }, s.deleted);
        });
      },
    });
    new Counter({
      name: 'kindex_informer_lists_total',
      help: 'Full lists run by the informer, the initial one included',
      labelNames,
      registers,
      collect() {
        this.reset();
        each((i, l) => this.inc(l, i.reflector.health.lists));
      },
    });
    new Counter({
      name: 'kindex_informer_relists_total',
      help: 'Full lists after the initial one; the reflector relists only after a 410 Gone (its resourceVersion expired), so this also counts 410s',
      labelNames,
      registers,
      collect() {
        this.reset();
        each((i, l) => this.inc(l, Math.max(0, i.reflector.health.lists - 1)));
      },
    });
    new Counter({
      name: 'kindex_informer_watch_restarts_total',
      help: 'List or watch started again after a failure, a 410 Gone or a silent stream',
      labelNames,
      registers,
      collect() {
        this.reset();
        each((i, l) => this.inc(l, i.reflector.health.restarts));
      },
    });
    new Gauge({
      name: 'kindex_informer_synced',
      help: '1 once the informer delivered its first list, else 0',
      labelNames,
      registers,
      collect() {
        this.reset();
        each((i, l) => this.set(l, i.reflector.health.synced ? 1 : 0));
      },
    });
    new Gauge({
      name: 'kindex_informer_watching',
      help: '1 while the informer has a watch stream open, else 0',
      labelNames,
      registers,
      collect() {
        this.reset();
        each((i, l) => this.set(l, i.reflector.health.watching ? 1 : 0));
      },
    });
    new Gauge({
      name: 'kindex_informer_last_sync_age_seconds',
      help: 'Seconds since the informer last heard from the API server (a list, a watch event or a bookmark)',
      labelNames,
      registers,
      collect() {
        this.reset();
        const now = Date.now();
        each((i, l) => {
          const at = i.stats.lastHeardAt;
          if (at > 0) this.set(l, Math.max(0, now - at) / 1000);
        });
      },
    });
  }

  /** Exports the informers of `registry`, now and as they come and go. */
  observe(registry: InformerRegistry): void {
    this.#registries.add(registry);
  }
}

function labelsOf(informer: SharedInformer): Record<InformerLabel, string> {
  const { type, namespace, labelSelector, fieldSelector, cluster } = informer.spec;
  const selector = [labelSelector ? `labels: ${labelSelector}` : '', fieldSelector ? `fields: ${fieldSelector}` : '']
    .filter(Boolean)
    .join('; ');
  // cluster: a remote source's cluster name, '' for the operator's own.
  return {
    resource: type.group ? `${type.plural}.${type.group}` : type.plural,
    namespace: namespace ?? '',
    selector,
    cluster: cluster ?? '',
  };
}
