/**
 * The value of one series in a Prometheus text exposition (what `/metrics` returns), or
 * undefined when the series is absent. `labels` must match the series' labels it names; other
 * labels of the series are ignored. When several series match, their values are summed (as
 * PromQL's `sum` would), so `metricValue(text, 'x_total', {})` totals every label set.
 *
 * @example
 * ```ts
 * import { metricValue } from '@kindex/testing/internal';
 * import { expect } from 'chai';
 * declare const port: number;
 * const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
 * expect(metricValue(text, 'controller_runtime_reconcile_total', { controller: 'widgets', result: 'success' })).to.equal(1);
 * ```
 */
export function metricValue(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (match === null || match[1] !== name) continue;
    const found = parseLabels(match[2] ?? '');
    if (!Object.entries(labels).every(([k, v]) => found[k] === v)) continue;
    total = (total ?? 0) + Number(match[3]);
  }
  return total;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const pattern = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    labels[m[1] as string] = (m[2] as string).replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
  }
  return labels;
}
