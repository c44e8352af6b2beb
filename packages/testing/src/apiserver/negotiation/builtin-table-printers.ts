// The Table columns of built-in kinds, as kube-apiserver prints them for `kubectl get`: ported
// from k8s.io/kubernetes pkg/printers/internalversion/printers.go (v1.36.3) for the kinds most
// often listed (Pods, Deployments, core/v1 and events.k8s.io/v1 Events, Services, Namespaces,
// ConfigMaps, Secrets). The server always prints wide (printers/storage asks for Wide), so
// every column is present; kubectl hides those of priority 1 unless `-o wide`. Column
// descriptions are the Go types' swagger docs, word for word. Other kinds get Name and Age.

import { toCoreEvent } from '../machinery/events-api.js';
import { timestampSince } from '../machinery/human-duration.js';
import type { Json } from '../storage/object-store.js';

/** One column of a Table: its definition and how a row's cell is made. */
export interface TableColumn {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

/** A kind's printer: its columns, the cells of one object, and the row's conditions if any. */
export interface TablePrinter {
  readonly columns: readonly TableColumn[];
  cells(obj: Json, now: number): unknown[];
  conditions?(obj: Json): Json[] | undefined;
}

export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const AGE_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

// Swagger docs of the fields the columns show (k8s.io/api v0.36.3 types_swagger_doc_generated.go).
const DOCS = {
  podIP: 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
  nodeName:
    'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename',
  nominatedNodeName:
    'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
  readinessGates:
    'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
  serviceType:
    'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types',
  clusterIP:
    'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
  externalIPs:
    'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.',
  ports:
    'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
  serviceSelector:
    'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/',
  lastTimestamp: 'The time at which the most recent occurrence of this event was recorded.',
  eventType: 'Type of this event (Normal, Warning), new types could be added in the future',
  reason:
    "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
  involvedObject: 'The object that this event is about.',
  fieldPath:
    'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
  source: 'The component reporting this event. Should be a short machine understandable string.',
  message: 'A human-readable description of the status of this operation.',
  firstTimestamp: 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
  count: 'The number of times this event has occurred.',
  secretType:
    'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
  secretData:
    "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
  configMapData:
    "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
  updatedReplicas: 'Total number of non-terminating pods targeted by this deployment that have the desired template spec.',
  availableReplicas: 'Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.',
  deploymentSelector:
    "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.",
} as const;

const col = (name: string, description: string, priority = 0, format = ''): TableColumn => ({
  name,
  type: 'string',
  format,
  description,
  priority,
});
const NAME = col('Name', NAME_DESCRIPTION, 0, 'name');
const AGE = col('Age', AGE_DESCRIPTION);

const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const meta = (o: Json): Json => obj(o['metadata']);
const name = (o: Json): string => str(meta(o)['name']);
const age = (o: Json, now: number): string => timestampSince(meta(o)['creationTimestamp'], now);
const sizeOf = (v: unknown): number => Object.keys(obj(v)).length;

/** labels.FormatLabels: `k=v` pairs sorted by key, `<none>` for none. */
function formatLabels(labels: unknown): string {
  const entries = Object.entries(obj(labels)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${String(v)}`).join(',');
}

/** metav1.LabelSelectorAsSelector(selector).String(): requirements sorted by key; `<invalid>` for a bad operator. */
function selectorString(selector: unknown): string {
  if (selector === undefined || selector === null) return '';
  const s = obj(selector);
  const requirements: Array<[string, string]> = Object.entries(obj(s['matchLabels'])).map(([k, v]) => [k, `${k}=${String(v)}`]);
  for (const e of list(s['matchExpressions'])) {
    const key = str(e['key']);
    const values = list(e['values']).map(String).sort().join(',');
    const operator = e['operator'];
    if (operator === 'In') requirements.push([key, `${key} in (${values})`]);
    else if (operator === 'NotIn') requirements.push([key, `${key} notin (${values})`]);
    else if (operator === 'Exists') requirements.push([key, key]);
    else if (operator === 'DoesNotExist') requirements.push([key, `!${key}`]);
    else return '<invalid>';
  }
  return requirements
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, r]) => r)
    .join(',');
}

const POD: TablePrinter = {
  columns: [
    NAME,
    col('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'The aggregate status of the containers in this pod.'),
    col(
      'Restarts',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    AGE,
    col('IP', DOCS.podIP, 1),
    col('Node', DOCS.nodeName, 1),
    col('Nominated Node', DOCS.nominatedNodeName, 1),
    col('Readiness Gates', DOCS.readinessGates, 1),
  ],
  cells: podCells,
  conditions(o) {
    const phase = obj(o['status'])['phase'];
    if (phase === 'Succeeded')
      return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
    if (phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
    return undefined;
  },
};

/** printPod: readiness, the aggregate reason (init containers, waiting and terminated states), restarts. */
function podCells(o: Json, now: number): unknown[] {
  const spec = obj(o['spec']);
  const status = obj(o['status']);
  const initSpecs = list(spec['initContainers']);
  const restartable = new Set(initSpecs.filter((c) => c['restartPolicy'] === 'Always').map((c) => str(c['name'])));
  const totalContainers = list(spec['containers']).length + restartable.size;
  let readyContainers = 0;
  let restarts = 0;
  let restartableRestarts = 0;
  let lastRestart = 0;
  let lastRestartableRestart = 0;
  const phase = str(status['phase']);
  let reason = str(status['reason']) || phase;
  for (const c of list(status['conditions']))
    if (c['type'] === 'PodScheduled' && c['reason'] === 'SchedulingGated') reason = 'SchedulingGated';
  const finishedAt = (c: Json): number => Date.parse(str(obj(obj(c['lastState'])['terminated'])['finishedAt'])) || 0;

  let initializing = false;
  const initStatuses = list(status['initContainerStatuses']);
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i]!;
    restarts += num(c['restartCount']);
    lastRestart = Math.max(lastRestart, finishedAt(c));
    const isRestartable = restartable.has(str(c['name']));
    if (isRestartable) {
      restartableRestarts += num(c['restartCount']);
      lastRestartableRestart = Math.max(lastRestartableRestart, finishedAt(c));
    }
    const state = obj(c['state']);
    const terminated = state['terminated'] === undefined || state['terminated'] === null ? undefined : obj(state['terminated']);
    const waiting = state['waiting'] === undefined || state['waiting'] === null ? undefined : obj(state['waiting']);
    if (terminated !== undefined && num(terminated['exitCode']) === 0) continue;
    if (isRestartable && c['started'] === true) {
      if (c['ready'] === true) readyContainers++;
      continue;
    }
    if (terminated !== undefined) {
      if (str(terminated['reason']) === '') {
        reason =
          num(terminated['signal']) !== 0 ? `Init:Signal:${num(terminated['signal'])}` : `Init:ExitCode:${num(terminated['exitCode'])}`;
      } else reason = `Init:${str(terminated['reason'])}`;
    } else if (waiting !== undefined && str(waiting['reason']) !== '' && waiting['reason'] !== 'PodInitializing') {
      reason = `Init:${str(waiting['reason'])}`;
    } else reason = `Init:${i}/${initSpecs.length}`;
    initializing = true;
    break;
  }

  const initialized = list(status['conditions']).some((c) => c['type'] === 'Initialized' && c['status'] === 'True');
  if (!initializing || initialized) {
    restarts = restartableRestarts;
    lastRestart = lastRestartableRestart;
    let hasRunning = false;
    let errorReason = '';
    const statuses = list(status['containerStatuses']);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i]!;
      restarts += num(c['restartCount']);
      lastRestart = Math.max(lastRestart, finishedAt(c));
      const state = obj(c['state']);
      const waiting = state['waiting'] === undefined || state['waiting'] === null ? undefined : obj(state['waiting']);
      const terminated = state['terminated'] === undefined || state['terminated'] === null ? undefined : obj(state['terminated']);
      if (waiting !== undefined && str(waiting['reason']) !== '') reason = str(waiting['reason']);
      else if (terminated !== undefined) {
        if (str(terminated['reason']) !== '') reason = str(terminated['reason']);
        else if (num(terminated['signal']) !== 0) reason = `Signal:${num(terminated['signal'])}`;
        else reason = `ExitCode:${num(terminated['exitCode'])}`;
        if (num(terminated['exitCode']) !== 0) errorReason = reason;
      } else if (c['ready'] === true && state['running'] !== undefined && state['running'] !== null) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed') {
      const podReady = list(status['conditions']).some((c) => c['type'] === 'Ready' && c['status'] === 'True');
      if (hasRunning && podReady) reason = 'Running';
      else if (errorReason !== '') reason = errorReason;
      else if (hasRunning) reason = 'NotReady';
    }
  }

  const deleting = meta(o)['deletionTimestamp'] !== undefined && meta(o)['deletionTimestamp'] !== null;
  if (deleting && status['reason'] === 'NodeLost') reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  const restartsCell =
    restarts !== 0 && lastRestart !== 0
      ? `${restarts} (${timestampSince(new Date(lastRestart).toISOString(), now)} ago)`
      : String(restarts);
  const podIP = str(obj(list(status['podIPs'])[0])['ip']) || '<none>';
  const gates = list(spec['readinessGates']);
  let readinessGates = '<none>';
  if (gates.length > 0) {
    const conditions = list(status['conditions']);
    const trueCount = gates.filter((g) => conditions.find((c) => c['type'] === g['conditionType'])?.['status'] === 'True').length;
    readinessGates = `${trueCount}/${gates.length}`;
  }
  return [
    name(o),
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsCell,
    age(o, now),
    podIP,
    str(spec['nodeName']) || '<none>',
    str(status['nominatedNodeName']) || '<none>',
    readinessGates,
  ];
}

const DEPLOYMENT: TablePrinter = {
  columns: [
    NAME,
    col('Ready', 'Number of the pod with ready state'),
    col('Up-to-date', DOCS.updatedReplicas),
    col('Available', DOCS.availableReplicas),
    AGE,
    col('Containers', 'Names of each container in the template.', 1),
    col('Images', 'Images referenced by each container in the template.', 1),
    col('Selector', DOCS.deploymentSelector, 1),
  ],
  cells(o, now) {
    const spec = obj(o['spec']);
    const status = obj(o['status']);
    const containers = list(obj(obj(spec['template'])['spec'])['containers']);
    return [
      name(o),
      `${num(status['readyReplicas'])}/${num(spec['replicas'])}`,
      num(status['updatedReplicas']),
      num(status['availableReplicas']),
      age(o, now),
      containers.map((c) => str(c['name'])).join(','),
      containers.map((c) => str(c['image'])).join(','),
      selectorString(spec['selector']),
    ];
  },
};

const EVENT: TablePrinter = {
  columns: [
    col('Last Seen', DOCS.lastTimestamp),
    col('Type', DOCS.eventType),
    col('Reason', DOCS.reason),
    col('Object', DOCS.involvedObject),
    col('Subobject', DOCS.fieldPath, 1),
    col('Source', DOCS.source, 1),
    col('Message', DOCS.message),
    col('First Seen', DOCS.firstTimestamp, 1),
    col('Count', DOCS.count, 1),
    col('Name', NAME_DESCRIPTION, 1, 'name'),
  ],
  cells(stored, now) {
    // events.k8s.io/v1 is a view of the same storage: print it as the core/v1 Event it is.
    const o = stored['regarding'] !== undefined || stored['apiVersion'] === 'events.k8s.io/v1' ? toCoreEvent(stored) : stored;
    let firstSeen = timestampSince(o['firstTimestamp'], now);
    if (str(o['firstTimestamp']) === '') firstSeen = timestampSince(o['eventTime'], now);
    let lastSeen = timestampSince(o['lastTimestamp'], now);
    if (str(o['lastTimestamp']) === '') lastSeen = firstSeen;
    let count = num(o['count']);
    const series = o['series'];
    if (series !== undefined && series !== null) {
      lastSeen = timestampSince(obj(series)['lastObservedTime'], now);
      count = num(obj(series)['count']);
    } else if (count === 0) count = 1;
    const involved = obj(o['involvedObject']);
    const kind = str(involved['kind']).toLowerCase();
    const target = str(involved['name']) === '' ? kind : `${kind}/${str(involved['name'])}`;
    const source = obj(o['source']);
    const component = str(source['component']) || str(o['reportingComponent']);
    const host = str(source['host']) || str(o['reportingInstance']);
    return [
      lastSeen,
      str(o['type']),
      str(o['reason']),
      target,
      str(involved['fieldPath']),
      host === '' ? component : `${component}, ${host}`,
      str(o['message']).trim(),
      firstSeen,
      count,
      name(o),
    ];
  },
};

/** getServiceExternalIP for the server's wide printing (no clipping of load balancer addresses). */
function externalIP(spec: Json, status: Json): string {
  const externalIPs = list(spec['externalIPs']).map(String);
  switch (spec['type']) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = list(obj(status['loadBalancer'])['ingress']);
      const lb = [...new Set(ingress.map((i) => str(i['ip']) || str(i['hostname'])).filter((a) => a !== ''))].sort().join(',');
      if (externalIPs.length > 0) return [...(lb === '' ? [] : lb.split(',')), ...externalIPs].join(',');
      return lb === '' ? '<pending>' : lb;
    }
    case 'ExternalName':
      return str(spec['externalName']);
    default:
      return '<unknown>';
  }
}

const SERVICE: TablePrinter = {
  columns: [
    NAME,
    col('Type', DOCS.serviceType),
    col('Cluster-IP', DOCS.clusterIP),
    col('External-IP', DOCS.externalIPs),
    col('Port(s)', DOCS.ports),
    AGE,
    col('Selector', DOCS.serviceSelector, 1),
  ],
  cells(o, now) {
    const spec = obj(o['spec']);
    const ports = list(spec['ports'])
      .map((p) =>
        num(p['nodePort']) > 0
          ? `${num(p['port'])}:${num(p['nodePort'])}/${str(p['protocol'])}`
          : `${num(p['port'])}/${str(p['protocol'])}`,
      )
      .join(',');
    return [
      name(o),
      str(spec['type']),
      str(list(spec['clusterIPs'])[0]) || '<none>',
      externalIP(spec, obj(o['status'])),
      ports === '' ? '<none>' : ports,
      age(o, now),
      formatLabels(spec['selector']),
    ];
  },
};

const NAMESPACE: TablePrinter = {
  columns: [NAME, col('Status', 'The status of the namespace'), AGE],
  cells: (o, now) => [name(o), str(obj(o['status'])['phase']), age(o, now)],
};

const CONFIG_MAP: TablePrinter = {
  columns: [NAME, col('Data', DOCS.configMapData), AGE],
  cells: (o, now) => [name(o), sizeOf(o['data']) + sizeOf(o['binaryData']), age(o, now)],
};

const SECRET: TablePrinter = {
  columns: [NAME, col('Type', DOCS.secretType), col('Data', DOCS.secretData), AGE],
  cells: (o, now) => [name(o), str(o['type']), sizeOf(o['data']), age(o, now)],
};

/**
 * Name and Age, for the kinds without a printer here: their printers in printers.go differ, but
 * most start with Name and end with Age.
 */
const DEFAULT: TablePrinter = {
  columns: [NAME, AGE],
  cells: (o, now) => [name(o), age(o, now)],
};

const PRINTERS: Readonly<Record<string, TablePrinter>> = {
  '/pods': POD,
  'apps/deployments': DEPLOYMENT,
  '/events': EVENT,
  'events.k8s.io/events': EVENT,
  '/services': SERVICE,
  '/namespaces': NAMESPACE,
  '/configmaps': CONFIG_MAP,
  '/secrets': SECRET,
};

/** The printer of a built-in resource (by registry id, `group/resource`). */
export function builtinPrinter(typeId: string): TablePrinter {
  return PRINTERS[typeId] ?? DEFAULT;
}
