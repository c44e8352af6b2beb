// The CEL environment of x-kubernetes-validations: @marcbachmann/cel-js (zero dependencies, the
// CEL string extensions lowerAscii, upperAscii, trim, split, indexOf, lastIndexOf, substring and
// matches built in, about 2 µs an evaluation; @bufbuild/cel lacked those string functions and
// brings protobuf in) plus the Kubernetes libraries operators use: the rest of the strings
// extension (charAt, join, replace, reverse, format), lists, regex (find, findAll), quantity and
// url. Not provided: ip, cidr, semver, authz and format's %x/%o/%b/%e verbs (see
// validation-rules.ts for what a rule calling one gets).

import { Environment } from '@marcbachmann/cel-js';

type Value = unknown;

function compare(a: Value, b: Value): number {
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

function extreme(list: readonly Value[], sign: number): Value {
  if (list.length === 0) throw new Error('min/max called on an empty list');
  return list.reduce((best, v) => (compare(v, best) * sign > 0 ? v : best));
}

function regExp(pattern: string, flags = ''): RegExp {
  // RE2 and JavaScript agree on the syntax rules use; RE2's (?i) prefix becomes a flag.
  const insensitive = pattern.startsWith('(?i)');
  return new RegExp(insensitive ? pattern.slice(4) : pattern, `u${flags}${insensitive ? 'i' : ''}`);
}

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const QUANTITY_RE = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

/** A resource.Quantity (`500m`, `1Gi`), held as its value in base units. */
class Quantity {
  constructor(readonly value: number) {}
  static parse(text: string): Quantity | undefined {
    const m = QUANTITY_RE.exec(text);
    if (m === null) return undefined;
    return new Quantity(Number(m[1]! + (m[2] ?? '')) * SUFFIX[m[3] ?? '']!);
  }
}

function quantity(text: string): Quantity {
  const q = Quantity.parse(text);
  if (q === undefined) throw new Error(`quantities must match the regular expression '${QUANTITY_RE.source}'`);
  return q;
}

/** A parsed URL, as Kubernetes' url library returns it. */
class KubeUrl {
  constructor(readonly url: URL) {}
}

function kubeUrl(text: string): KubeUrl {
  try {
    return new KubeUrl(new URL(text));
  } catch {
    throw new Error(`URL parse error during conversion from string: ${text}`);
  }
}

// Go's fmt verbs the strings library's format() supports, except %x, %o, %b and %e.
function format(template: string, args: readonly Value[]): string {
  let i = 0;
  return template.replace(/%(?:\.(\d+))?([sdf%])/g, (_all, precision: string | undefined, verb: string) => {
    if (verb === '%') return '%';
    const arg = args[i++];
    if (verb === 'f') return Number(arg).toFixed(precision === undefined ? 6 : Number(precision));
    if (verb === 'd') return String(arg);
    return typeof arg === 'string' ? arg : JSON.stringify(arg, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
  });
}

// The environment every rule compiles in; `self` and `oldSelf` are untyped (dyn). Optional types
// (`self.?a`, optionalOldSelf) are on, as for CRD rules since Kubernetes 1.29. Shared by every
// caller in this package; kubernetesCelEnvironment() hands others a copy they may extend.
export const celEnvironment = new Environment({
  unlistedVariablesAreDyn: true,
  homogeneousAggregateLiterals: false,
  enableOptionalTypes: true,
})
  .registerType('Quantity', Quantity)
  .registerType('URL', KubeUrl)
  // strings
  .registerFunction('string.charAt(int): string', (s: string, i: bigint) => s.charAt(Number(i)))
  .registerFunction('list.join(): string', (l: string[]) => l.join(''))
  .registerFunction('list.join(string): string', (l: string[], sep: string) => l.join(sep))
  .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => s.split(a).join(b))
  .registerFunction('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
    const parts = s.split(a);
    const count = n < 0n ? parts.length : Number(n) + 1;
    return [parts.slice(0, count).join(b), ...parts.slice(count)].join(a);
  })
  .registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''))
  .registerFunction('string.format(list): string', (s: string, args: Value[]) => format(s, args))
  // lists
  .registerFunction('list.isSorted(): bool', (l: Value[]) => l.every((v, i) => i === 0 || compare(l[i - 1], v) <= 0))
  .registerFunction('list.sum(): dyn', (l: Value[]) =>
    l.reduce((a, b) => (a as number) + (b as number), l.length === 0 || typeof l[0] === 'bigint' ? 0n : 0),
  )
  .registerFunction('list.min(): dyn', (l: Value[]) => extreme(l, -1))
  .registerFunction('list.max(): dyn', (l: Value[]) => extreme(l, 1))
  .registerFunction('list.indexOf(dyn): int', (l: Value[], v: Value) => BigInt(l.indexOf(v)))
  .registerFunction('list.lastIndexOf(dyn): int', (l: Value[], v: Value) => BigInt(l.lastIndexOf(v)))
  // regex
  .registerFunction('string.find(string): string', (s: string, re: string) => regExp(re).exec(s)?.[0] ?? '')
  .registerFunction('string.findAll(string): list<string>', (s: string, re: string) => s.match(regExp(re, 'g')) ?? [])
  .registerFunction('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => {
    const all = s.match(regExp(re, 'g')) ?? [];
    return n < 0n ? all : all.slice(0, Number(n));
  })
  // quantity
  .registerFunction('isQuantity(string): bool', (s: string) => Quantity.parse(s) !== undefined)
  .registerFunction('quantity(string): Quantity', quantity)
  .registerFunction('Quantity.isLessThan(Quantity): bool', (a: Quantity, b: Quantity) => a.value < b.value)
  .registerFunction('Quantity.isGreaterThan(Quantity): bool', (a: Quantity, b: Quantity) => a.value > b.value)
  .registerFunction('Quantity.compareTo(Quantity): int', (a: Quantity, b: Quantity) => BigInt(compare(a.value, b.value)))
  .registerFunction('Quantity.add(Quantity): Quantity', (a: Quantity, b: Quantity) => new Quantity(a.value + b.value))
  .registerFunction('Quantity.sub(Quantity): Quantity', (a: Quantity, b: Quantity) => new Quantity(a.value - b.value))
  .registerFunction('Quantity.sign(): int', (a: Quantity) => BigInt(Math.sign(a.value)))
  .registerFunction('Quantity.isInteger(): bool', (a: Quantity) => Number.isInteger(a.value))
  .registerFunction('Quantity.asInteger(): int', (a: Quantity) => {
    if (!Number.isInteger(a.value)) throw new Error('cannot convert value to integer');
    return BigInt(a.value);
  })
  .registerFunction('Quantity.asApproximateFloat(): double', (a: Quantity) => a.value)
  // url
  .registerFunction('isURL(string): bool', (s: string) => URL.canParse(s))
  .registerFunction('url(string): URL', kubeUrl)
  .registerFunction('URL.getScheme(): string', (u: KubeUrl) => u.url.protocol.replace(/:$/, ''))
  .registerFunction('URL.getHost(): string', (u: KubeUrl) => u.url.host)
  .registerFunction('URL.getHostname(): string', (u: KubeUrl) => u.url.hostname.replace(/^\[(.*)\]$/, '$1'))
  .registerFunction('URL.getPort(): string', (u: KubeUrl) => u.url.port)
  .registerFunction('URL.getEscapedPath(): string', (u: KubeUrl) => u.url.pathname)
  .registerFunction('URL.getQuery(): map', (u: KubeUrl) => {
    const query: Record<string, string[]> = {};
    for (const [k, v] of u.url.searchParams) (query[k] ??= []).push(v);
    return query;
  });

/**
 * A copy of the CEL environment kindex checks `x-kubernetes-validations` rules in: CEL with the
 * Kubernetes strings, lists, regex, quantity and url libraries, `self` and `oldSelf` untyped
 * (`dyn`), optional types on. Register more variables or functions on the copy to evaluate
 * other Kubernetes CEL (a webhook's matchConditions, say); the copy leaves the rules' environment
 * as it is.
 *
 * Caveats: Kubernetes' ip, cidr, semver and authz libraries are not provided.
 *
 * @example
 * ```ts
 * import { kubernetesCelEnvironment } from '@kindex/core/internal';
 *
 * const environment = kubernetesCelEnvironment();
 * const small = environment.evaluate("quantity(self).isLessThan(quantity('1Gi'))", { self: '512Mi' }); // true
 * ```
 */
export function kubernetesCelEnvironment(): Environment {
  return celEnvironment.clone();
}
