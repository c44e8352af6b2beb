// Services as kube-apiserver stores them: the defaults of core/v1 decoding and of the service
// REST strategy (type, session affinity, traffic policy, IP families, ports), and a cluster IP
// from the service CIDR (service-cluster-ips.ts) that cannot change once set.

import { isJsonObject } from '@kindex/core/internal';
import { invalid, type StatusCause } from '../storage/status-error.js';
import { type Json, type ObjectStore, type StoredObject } from '../storage/object-store.js';
import { ServiceClusterIps } from './service-cluster-ips.js';
import type { ResourceType } from '../storage/resource-registry.js';

const SERVICE_TYPE_ID = '/services';

/**
 * Decoding defaults, applied on every write: type ClusterIP, sessionAffinity None, and per port
 * protocol TCP and targetPort = port (ports are keyed by port+protocol for field ownership).
 */
export function defaultService(typeId: string, obj: Json): void {
  if (typeId !== SERVICE_TYPE_ID) return;
  const spec = obj['spec'];
  if (!isJsonObject(spec)) return;
  spec['type'] ??= 'ClusterIP';
  spec['sessionAffinity'] ??= 'None';
  if (spec['type'] !== 'ExternalName') spec['internalTrafficPolicy'] ??= 'Cluster';
  if (!Array.isArray(spec['ports'])) return;
  for (const p of spec['ports'] as unknown[]) {
    if (!isJsonObject(p)) continue;
    p['protocol'] ??= 'TCP';
    p['targetPort'] ??= p['port'];
  }
}

/**
 * The write hook of Services: allocates a cluster IP on create, keeps it on updates that leave it
 * out, refuses to change it (422 as kube-apiserver words it) and fills in clusterIPs, ipFamilies
 * and ipFamilyPolicy to match.
 */
export class ServiceAllocation {
  private readonly ips: ServiceClusterIps;

  constructor(
    private readonly store: ObjectStore,
    cidr: string,
  ) {
    this.ips = new ServiceClusterIps(cidr);
  }

  /** Completes (or refuses) a Service about to be written; other kinds pass untouched. */
  beforeWrite(type: ResourceType, draft: Json, old: StoredObject | undefined): void {
    if (type.id !== SERVICE_TYPE_ID) return;
    const spec = draft['spec'];
    if (!isJsonObject(spec) || spec['type'] === 'ExternalName') return;
    const name = String((draft['metadata'] as Json | undefined)?.['name'] ?? '');
    const causes = old === undefined ? this.assign(spec) : this.keep(spec, old.obj);
    if (causes.length > 0) throw invalid('Service', '', name, causes);
    defaultFamilies(spec);
  }

  // Create: an IP from the range when none (or "") is asked for, else the one asked for if free.
  private assign(spec: Json): StatusCause[] {
    const asked = firstClusterIp(spec);
    if (asked === 'None') {
      spec['clusterIP'] = 'None';
      spec['clusterIPs'] = ['None'];
      return [];
    }
    const used = this.usedIps();
    if (asked === undefined) {
      const ip = this.ips.allocate(used);
      if (ip === undefined) {
        return [
          { reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: `Invalid value: []: failed to allocate IP: range is full` },
        ];
      }
      spec['clusterIP'] = ip;
      spec['clusterIPs'] = [ip];
      return [];
    }
    const problem = this.ips.check(asked, used);
    if (problem !== undefined) {
      return [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.clusterIPs',
          message: `Invalid value: ${JSON.stringify([asked])}: failed to allocate IP ${asked}: ${problem}`,
        },
      ];
    }
    spec['clusterIP'] = asked;
    spec['clusterIPs'] = [asked];
    return [];
  }

  // Update: a body without a cluster IP keeps the stored one; a different one is refused.
  private keep(spec: Json, old: Readonly<Json>): StatusCause[] {
    const oldSpec = isJsonObject(old['spec']) ? old['spec'] : {};
    const oldIps = Array.isArray(oldSpec['clusterIPs']) ? (oldSpec['clusterIPs'] as string[]) : [];
    if (oldIps.length === 0) return this.assign(spec);
    const clusterIp = spec['clusterIP'];
    const sentIps = Array.isArray(spec['clusterIPs']) ? (spec['clusterIPs'] as unknown[]) : [];
    // The strategy lets a change of clusterIP alone carry clusterIPs along, then validates both.
    let ips: unknown[] = sentIps.length === 0 ? [...oldIps] : sentIps;
    if (
      typeof clusterIp === 'string' &&
      clusterIp !== '' &&
      clusterIp !== oldIps[0] &&
      JSON.stringify(sentIps) === JSON.stringify(oldIps)
    ) {
      ips = [clusterIp];
    }
    if (sentIps.length === 0 && typeof clusterIp === 'string' && clusterIp !== '') ips = [clusterIp];
    if (ips[0] !== oldIps[0]) {
      return [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.clusterIPs[0]',
          message: `Invalid value: ${JSON.stringify(ips)}: may not change once set`,
        },
      ];
    }
    spec['clusterIP'] = oldIps[0];
    spec['clusterIPs'] = ips;
    return [];
  }

  private usedIps(): Set<string> {
    const used = new Set<string>();
    for (const o of this.store.list(SERVICE_TYPE_ID)) {
      const ips = ((o.obj['spec'] ?? {}) as Json)['clusterIPs'];
      if (Array.isArray(ips)) for (const ip of ips) if (typeof ip === 'string') used.add(ip);
    }
    return used;
  }
}

// The first IP a create asks for, from clusterIP or clusterIPs; undefined when it asks for none.
function firstClusterIp(spec: Json): string | undefined {
  const single = spec['clusterIP'];
  if (typeof single === 'string' && single !== '') return single;
  const many = spec['clusterIPs'];
  if (Array.isArray(many) && typeof many[0] === 'string' && many[0] !== '') return many[0];
  return undefined;
}

// A single-stack IPv4 cluster: one family, except a headless Service without a selector, which
// kube-apiserver marks RequireDualStack with both families.
function defaultFamilies(spec: Json): void {
  const headlessWithoutSelector = spec['clusterIP'] === 'None' && !isJsonObject(spec['selector']);
  spec['ipFamilyPolicy'] ??= headlessWithoutSelector ? 'RequireDualStack' : 'SingleStack';
  spec['ipFamilies'] ??= headlessWithoutSelector ? ['IPv4', 'IPv6'] : ['IPv4'];
}
