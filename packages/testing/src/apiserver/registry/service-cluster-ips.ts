// The service CIDR cluster IPs come from: IPv4 only, as the real tier's
// --service-cluster-ip-range (10.0.0.0/24). Free addresses are whatever no stored Service holds,
// so nothing needs releasing when a Service goes and a dry run reserves nothing.

/** The real tier's --service-cluster-ip-range, which the embedded server allocates from too. */
export const SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';

const IPV4_RE = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function toNumber(ip: string): number | undefined {
  const m = IPV4_RE.exec(ip);
  if (m === null) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

function toText(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** An IPv4 service range: which addresses may be handed out, and a free one. */
export class ServiceClusterIps {
  private readonly first: number;
  private readonly last: number;

  /** @throws Error when `cidr` is not an IPv4 CIDR such as `10.0.0.0/24`. */
  constructor(cidr: string) {
    const [address, bitsText] = cidr.split('/');
    const base = toNumber(address ?? '');
    const bits = Number(bitsText);
    if (base === undefined || !Number.isInteger(bits) || bits < 8 || bits > 30) {
      throw new Error(`service CIDR ${JSON.stringify(cidr)} is not an IPv4 CIDR between /8 and /30; use one such as "10.0.0.0/24"`);
    }
    const size = 2 ** (32 - bits);
    const network = base - (base % size);
    // The network and broadcast addresses are never handed out, and the first host address is
    // the `kubernetes` Service's on a real server.
    this.first = network + 2;
    this.last = network + size - 2;
  }

  /** Why `ip` cannot be given to a Service (kube-apiserver's wording), undefined when it can. */
  check(ip: string, used: ReadonlySet<string>): string | undefined {
    const n = toNumber(ip);
    if (n === undefined || n < this.first - 1 || n > this.last) return 'the provided network does not match the current range';
    if (used.has(ip) || n === this.first - 1) return 'provided IP is already allocated';
    return undefined;
  }

  /** A free address at random (as kube-apiserver picks them), undefined when the range is full. */
  allocate(used: ReadonlySet<string>): string | undefined {
    const count = this.last - this.first + 1;
    const start = Math.floor(Math.random() * count);
    for (let i = 0; i < count; i++) {
      const ip = toText(this.first + ((start + i) % count));
      if (!used.has(ip)) return ip;
    }
    return undefined;
  }
}
