// The health endpoints kube-apiserver serves to load balancers and kubelets: /healthz, /livez and
// /readyz answer text/plain `ok`; `?verbose` lists each check as `[+]name ok` and ends with
// `<endpoint> check passed`; `?exclude=name` marks a check `excluded: ok`; `/<endpoint>/<check>`
// runs one check, and an unknown one is Go's plain 404. The embedded server's checks are the ones
// it can honestly pass: it answers (ping), it logs nothing that could fail (log), and its store
// is in memory, so nothing else can fail; /readyz adds `shutdown` (not shutting down) as the real one does.

/** The three health endpoints. */
export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

const CHECKS: Readonly<Record<HealthEndpoint, readonly string[]>> = {
  healthz: ['ping', 'log'],
  livez: ['ping', 'log'],
  readyz: ['ping', 'log', 'shutdown'],
};

/** A plain-text answer: status and body (sent as text/plain; charset=utf-8). */
export interface TextResponse {
  readonly status: number;
  readonly body: string;
  /** Sends `X-Content-Type-Options: nosniff`, as the endpoints and Go's 404 do (single checks do not). */
  readonly nosniff?: boolean;
}

/** Go's http.NotFound body, which kube-apiserver's health mux answers for an unknown check. */
export const NOT_FOUND_TEXT = '404 page not found\n';

/** The answer of a health endpoint, or of one of its checks when `check` is given. */
export function healthResponse(endpoint: HealthEndpoint, check: string | undefined, query: URLSearchParams): TextResponse {
  const checks = CHECKS[endpoint];
  if (check !== undefined)
    return checks.includes(check) ? { status: 200, body: 'ok' } : { status: 404, body: NOT_FOUND_TEXT, nosniff: true };
  // Like kube-apiserver, any `verbose` parameter, even `verbose=false`, asks for the list.
  if (!query.has('verbose')) return { status: 200, body: 'ok', nosniff: true };
  const excluded = new Set(query.getAll('exclude'));
  const lines = checks.map((c) => (excluded.has(c) ? `[+]${c} excluded: ok` : `[+]${c} ok`));
  return { status: 200, body: `${lines.join('\n')}\n${endpoint} check passed\n`, nosniff: true };
}
