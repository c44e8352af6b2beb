// The embedded server's /metrics: a few of kube-apiserver's STABLE request metrics, counted for
// real, in the Prometheus text format kube-apiserver serves (same names, HELP texts and labels),
// so that tests of dashboards or of an operator's request volume can read them.
//
// apiserver_request_total counts every authenticated request by verb (LIST, WATCH, APPLY, ...),
// dry run, group, version, resource, subresource, scope, component and HTTP code;
// apiserver_longrunning_requests is the number of open watches by the same request labels.

import type http from 'node:http';
import type { Route } from '../filters/router.js';

/** How kube-apiserver labels a request in its metrics (see CleanVerb, CleanScope in endpoints/metrics). */
export interface RequestLabels {
  readonly verb: string;
  readonly dryRun: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly scope: string;
  readonly component: string;
}

/** What a request addresses, as the router found it, for {@link requestLabels}. */
export interface MetricsTarget {
  readonly method: string;
  readonly path: string;
  readonly resource?: {
    readonly group: string;
    readonly version: string;
    readonly resource: string;
    readonly subresource: string | undefined;
    readonly namespace: string | undefined;
    readonly name: string | undefined;
  };
  readonly watch: boolean;
  readonly apply: boolean;
  readonly dryRun: readonly string[];
}

/** The labels kube-apiserver gives a request. */
export function requestLabels(t: MetricsTarget): RequestLabels {
  const r = t.resource;
  if (r === undefined) {
    // Non-resource requests carry their path as subresource and nothing else.
    return { verb: t.method, dryRun: '', group: '', version: '', resource: '', subresource: t.path, scope: '', component: '' };
  }
  const verb = t.watch
    ? 'WATCH'
    : t.method === 'GET' && r.name === undefined
      ? 'LIST'
      : t.method === 'PATCH' && t.apply
        ? 'APPLY'
        : t.method;
  const scope = r.name !== undefined || t.method === 'POST' ? 'resource' : r.namespace !== undefined ? 'namespace' : 'cluster';
  const values = [...new Set(t.dryRun)].sort();
  const dryRun = values.every((v) => v === 'All') ? values.join(',') : 'invalid';
  return {
    verb,
    dryRun,
    group: r.group,
    version: r.version,
    resource: r.resource,
    subresource: r.subresource ?? '',
    scope,
    component: 'apiserver',
  };
}

const REQUEST_HELP =
  '# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.\n# TYPE apiserver_request_total counter\n';
const LONGRUNNING_HELP =
  '# HELP apiserver_longrunning_requests [STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.\n# TYPE apiserver_longrunning_requests gauge\n';

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

// Labels in name order, as the Prometheus client writes them.
function labelText(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escapeLabel(labels[k]!)}"`)
    .join(',');
}

/** The request counters of one server. */
export class RequestMetrics {
  private readonly requests = new Map<string, number>();
  private readonly longRunning = new Map<string, number>();

  /** Counts a finished request with its HTTP code. */
  count(labels: RequestLabels, code: number): void {
    const key = labelText({ ...this.common(labels), code: String(code), dry_run: labels.dryRun });
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
  }

  /** Counts a watch as open until the returned function is called. */
  open(labels: RequestLabels): () => void {
    const key = labelText(this.common(labels));
    this.longRunning.set(key, (this.longRunning.get(key) ?? 0) + 1);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.longRunning.set(key, (this.longRunning.get(key) ?? 1) - 1);
    };
  }

  /** The Prometheus text exposition of the counters. */
  text(): string {
    const lines = (m: Map<string, number>, name: string) =>
      [...m.keys()]
        .sort()
        .map((k) => `${name}{${k}} ${m.get(k)!}\n`)
        .join('');
    return `${LONGRUNNING_HELP}${lines(this.longRunning, 'apiserver_longrunning_requests')}${REQUEST_HELP}${lines(this.requests, 'apiserver_request_total')}`;
  }

  private common(l: RequestLabels): Record<string, string> {
    return {
      component: l.component,
      group: l.group,
      resource: l.resource,
      scope: l.scope,
      subresource: l.subresource,
      verb: l.verb,
      version: l.version,
    };
  }
}

/** The Content-Type of kube-apiserver's /metrics. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8; escaping=underscores';

/** Counts the request in apiserver_request_total once its answer is sent (watches when they end). */
export function countRequest(
  metrics: RequestMetrics,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
  r: Route | undefined,
): void {
  const method = req.method ?? 'GET';
  const watch = url.searchParams.get('watch');
  const labels = requestLabels({
    method,
    path: url.pathname,
    ...(r?.kind === 'resource'
      ? {
          resource: {
            group: r.group,
            version: r.version,
            resource: r.resource,
            subresource: r.subresource,
            namespace: r.namespace,
            name: r.name,
          },
        }
      : {}),
    watch: method === 'GET' && (watch === 'true' || watch === '1'),
    apply: (req.headers['content-type'] ?? '').startsWith('application/apply-patch'),
    dryRun: url.searchParams.getAll('dryRun'),
  });
  const closeWatch = labels.verb === 'WATCH' ? metrics.open(labels) : undefined;
  res.once('close', () => {
    closeWatch?.();
    metrics.count(labels, res.statusCode);
  });
}
