// The defaults kube-apiserver's decoding gives a pod spec (SetDefaults_PodSpec and
// SetDefaults_Container of pkg/apis/core/v1), shared by Pods and the pod templates of workloads:
// an operator comparing what it wrote with what it reads back sees these fields appear.

import { isJsonObject } from '@kindex/core/internal';
import { type Json } from '../storage/object-store.js';

// An image without a tag (or tagged `latest`) is pulled on every start; a digest or other tag once.
function pullPolicyOf(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const lastPart = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastPart.lastIndexOf(':');
  return colon === -1 || lastPart.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(c: Json): void {
  c['imagePullPolicy'] ??= pullPolicyOf(c['image']);
  c['terminationMessagePath'] ??= '/dev/termination-log';
  c['terminationMessagePolicy'] ??= 'File';
  c['resources'] ??= {};
  // Ports are keyed by containerPort+protocol for field ownership, so the default matters there too.
  if (Array.isArray(c['ports'])) for (const p of c['ports'] as unknown[]) if (isJsonObject(p)) p['protocol'] ??= 'TCP';
}

/** Fills in the defaults of a pod spec in place (a missing or malformed spec is left alone). */
export function defaultPodSpec(spec: unknown): void {
  if (!isJsonObject(spec)) return;
  spec['restartPolicy'] ??= 'Always';
  spec['terminationGracePeriodSeconds'] ??= 30;
  spec['dnsPolicy'] ??= 'ClusterFirst';
  spec['securityContext'] ??= {};
  spec['schedulerName'] ??= 'default-scheduler';
  for (const list of ['initContainers', 'containers']) {
    const containers = spec[list];
    if (Array.isArray(containers)) for (const c of containers as unknown[]) if (isJsonObject(c)) defaultContainer(c);
  }
}

/** Defaults the real server applies to Pods, where field selectors and readers see them. */
export function defaultPod(obj: Json): void {
  if (!isJsonObject(obj['spec'])) obj['spec'] = {};
  defaultPodSpec(obj['spec']);
}
