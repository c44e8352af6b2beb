// `kubectl get` of the common kinds, as kube-apiserver 1.36 prints them server-side: the
// columns of k8s.io/kubernetes' printers (every column: the server prints wide, kubectl hides
// priority 1 unless -o wide) and a CRD's printer columns evaluated as Kubernetes JSONPath,
// filters included (kubebuilder's Ready column). Cells are compared exactly, ages by their form.
import { expect } from 'chai';
import { eventually } from '../helpers/eventually.js';
import { rawRequest } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { useConformanceFixture } from './conformance-fixture.js';

const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}
interface Table {
  kind: string;
  columnDefinitions: Column[];
  rows: Array<{ cells: unknown[]; conditions?: unknown[]; object: { metadata: { name: string } } }>;
}

/** A fresh object's age: seconds, or a minute or two on a slow machine. */
const FRESH = /^(\d+s|\d+m(\d+s)?)$/;
const ago = (ms: number): string => new Date(Date.now() - ms).toISOString().replace(/\.\d+Z$/, 'Z');
const microAgo = (ms: number): string => new Date(Date.now() - ms).toISOString().replace(/Z$/, '000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Columns as [name, type, format, priority]; descriptions are checked apart. */
const shape = (table: Table): Array<[string, string, string, number]> =>
  table.columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority]);

describe('conformance: Table columns of built-in kinds and CRD printer columns (kubectl get)', function () {
  this.timeout(60_000);
  const fixture = useConformanceFixture();

  async function table(path: string): Promise<Table> {
    const r = await rawRequest(fixture().kubeConfig, { path, headers: { Accept: TABLE_ACCEPT } });
    expect(r.status, r.text).to.equal(200);
    const parsed = JSON.parse(r.text) as Table;
    expect(parsed.kind).to.equal('Table');
    for (const c of parsed.columnDefinitions) expect(c.description, c.name).to.be.a('string').and.not.equal('');
    return parsed;
  }
  async function create(path: string, body: object): Promise<void> {
    const r = await rawRequest(fixture().kubeConfig, {
      method: 'POST',
      path,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(r.status, r.text).to.equal(201);
  }

  it('prints Deployments as READY, UP-TO-DATE, AVAILABLE, AGE, then CONTAINERS, IMAGES, SELECTOR', async () => {
    const { namespace } = fixture();
    await create(`/apis/apps/v1/namespaces/${namespace}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] },
        template: {
          metadata: { labels: { app: 'web', tier: 'a' } },
          spec: {
            containers: [
              { name: 'nginx', image: 'nginx:1.27' },
              { name: 'sidecar', image: 'busybox:1.36' },
            ],
          },
        },
      },
    });
    const t = await table(`/apis/apps/v1/namespaces/${namespace}/deployments`);
    expect(shape(t)).to.deep.equal([
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Up-to-date', 'string', '', 0],
      ['Available', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Containers', 'string', '', 1],
      ['Images', 'string', '', 1],
      ['Selector', 'string', '', 1],
    ]);
    expect(t.columnDefinitions[1]!.description).to.equal('Number of the pod with ready state');
    const [cells] = t.rows.map((r) => r.cells);
    expect(cells![4]).to.match(FRESH);
    expect([...cells!.slice(0, 4), ...cells!.slice(5)]).to.deep.equal([
      'web',
      '0/3',
      0,
      0,
      'nginx,sidecar',
      'nginx:1.27,busybox:1.36',
      'app=web,tier in (a,b)',
    ]);
  });

  it('prints core/v1 Events as LAST SEEN, TYPE, REASON, OBJECT, MESSAGE (and the wide columns), a series by its last observation', async () => {
    const { namespace } = fixture();
    const path = `/api/v1/namespaces/${namespace}/events`;
    await create(path, {
      metadata: { name: 'started' },
      involvedObject: { kind: 'Pod', name: 'web-1', namespace, fieldPath: 'spec.containers{app}' },
      reason: 'Started',
      type: 'Normal',
      message: '  started container app\n',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: ago(3 * HOUR),
      lastTimestamp: ago(10 * MINUTE),
      count: 4,
    });
    await create(path, {
      metadata: { name: 'series' },
      involvedObject: { kind: 'Pod', namespace },
      reason: 'Pressure',
      type: 'Warning',
      message: 'disk',
      eventTime: microAgo(3 * HOUR),
      series: { count: 7, lastObservedTime: microAgo(10 * MINUTE) },
      reportingComponent: 'example.com/monitor',
      reportingInstance: 'monitor-1',
      action: 'Observe',
    });
    const t = await table(path);
    expect(shape(t)).to.deep.equal([
      ['Last Seen', 'string', '', 0],
      ['Type', 'string', '', 0],
      ['Reason', 'string', '', 0],
      ['Object', 'string', '', 0],
      ['Subobject', 'string', '', 1],
      ['Source', 'string', '', 1],
      ['Message', 'string', '', 0],
      ['First Seen', 'string', '', 1],
      ['Count', 'string', '', 1],
      ['Name', 'string', 'name', 1],
    ]);
    const rows = Object.fromEntries(t.rows.map((r) => [r.object.metadata.name, r.cells]));
    expect(rows['started']).to.deep.equal([
      '10m',
      'Normal',
      'Started',
      'pod/web-1',
      'spec.containers{app}',
      'kubelet, node-1',
      'started container app',
      '3h',
      4,
      'started',
    ]);
    expect(rows['series']).to.deep.equal([
      '10m',
      'Warning',
      'Pressure',
      'pod',
      '',
      'example.com/monitor, monitor-1',
      'disk',
      '3h',
      7,
      'series',
    ]);
  });

  it('prints events.k8s.io/v1 Events with the core/v1 Event columns', async () => {
    const { namespace } = fixture();
    await create(`/apis/events.k8s.io/v1/namespaces/${namespace}/events`, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'scaled' },
      eventTime: microAgo(5 * HOUR),
      reportingController: 'example.com/scaler',
      reportingInstance: 'scaler-1',
      action: 'Scale',
      reason: 'Scaled',
      regarding: { kind: 'Deployment', name: 'web', namespace },
      note: 'scaled to 3',
      type: 'Normal',
    });
    const t = await table(`/apis/events.k8s.io/v1/namespaces/${namespace}/events`);
    expect(t.columnDefinitions.map((c) => c.name)).to.deep.equal([
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Subobject',
      'Source',
      'Message',
      'First Seen',
      'Count',
      'Name',
    ]);
    expect(t.rows.map((r) => r.cells)).to.deep.equal([
      ['5h', 'Normal', 'Scaled', 'deployment/web', '', 'example.com/scaler, scaler-1', 'scaled to 3', '5h', 1, 'scaled'],
    ]);
  });

  it('prints Pods as READY, STATUS, RESTARTS, AGE, then IP, NODE, NOMINATED NODE, READINESS GATES', async () => {
    const { namespace } = fixture();
    await create(`/api/v1/namespaces/${namespace}/pods`, {
      metadata: { name: 'web-1' },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], readinessGates: [{ conditionType: 'example.com/ready' }] },
    });
    const t = await table(`/api/v1/namespaces/${namespace}/pods`);
    expect(shape(t)).to.deep.equal([
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Status', 'string', '', 0],
      ['Restarts', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['IP', 'string', '', 1],
      ['Node', 'string', '', 1],
      ['Nominated Node', 'string', '', 1],
      ['Readiness Gates', 'string', '', 1],
    ]);
    const [cells] = t.rows.map((r) => r.cells);
    expect(cells![4]).to.match(FRESH);
    expect([...cells!.slice(0, 4), ...cells!.slice(5)]).to.deep.equal([
      'web-1',
      '0/1',
      'Pending',
      '0',
      '<none>',
      '<none>',
      '<none>',
      '0/1',
    ]);
  });

  it("prints a Pod's status as kubectl shows it: the waiting reason, restarts with the last one's age, the IP", async () => {
    const { kubeConfig, namespace } = fixture();
    const path = `/api/v1/namespaces/${namespace}/pods`;
    await create(path, {
      metadata: { name: 'crashing' },
      spec: {
        containers: [
          { name: 'app', image: 'nginx:1.27' },
          { name: 'log', image: 'busybox:1.36' },
        ],
      },
    });
    const pod = JSON.parse((await rawRequest(kubeConfig, { path: `${path}/crashing` })).text) as { metadata: object };
    const status = {
      phase: 'Running',
      podIP: '10.1.2.3',
      podIPs: [{ ip: '10.1.2.3' }],
      containerStatuses: [
        {
          name: 'app',
          image: 'nginx:1.27',
          imageID: '',
          ready: false,
          restartCount: 3,
          state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off' } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: ago(6 * MINUTE), finishedAt: ago(5 * MINUTE) } },
        },
        { name: 'log', image: 'busybox:1.36', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: ago(HOUR) } } },
      ],
    };
    const r = await rawRequest(kubeConfig, {
      method: 'PUT',
      path: `${path}/crashing/status`,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...pod, status }),
    });
    expect(r.status, r.text).to.equal(200);
    const t = await table(`${path}/crashing`);
    const [cells] = t.rows.map((row) => row.cells);
    expect([...cells!.slice(0, 4), ...cells!.slice(5)]).to.deep.equal([
      'crashing',
      '1/2',
      'CrashLoopBackOff',
      '3 (5m ago)',
      '10.1.2.3',
      '<none>',
      '<none>',
      '<none>',
    ]);
  });

  it('prints Services, Namespaces and ConfigMaps with their columns', async () => {
    const { namespace } = fixture();
    await create(`/api/v1/namespaces/${namespace}/services`, {
      metadata: { name: 'web' },
      spec: {
        selector: { tier: 'a', app: 'web' },
        ports: [
          { name: 'http', port: 80, targetPort: 8080 },
          { name: 'https', port: 443 },
        ],
      },
    });
    await create(`/api/v1/namespaces/${namespace}/services`, {
      metadata: { name: 'external' },
      spec: { type: 'ExternalName', externalName: 'db.example.com' },
    });
    const services = await table(`/api/v1/namespaces/${namespace}/services`);
    expect(shape(services)).to.deep.equal([
      ['Name', 'string', 'name', 0],
      ['Type', 'string', '', 0],
      ['Cluster-IP', 'string', '', 0],
      ['External-IP', 'string', '', 0],
      ['Port(s)', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Selector', 'string', '', 1],
    ]);
    const rows = Object.fromEntries(services.rows.map((r) => [r.object.metadata.name, r.cells]));
    expect(rows['web']![2]).to.match(/^\d+\.\d+\.\d+\.\d+$/);
    expect([...rows['web']!.slice(0, 2), ...rows['web']!.slice(3, 5), rows['web']![6]]).to.deep.equal([
      'web',
      'ClusterIP',
      '<none>',
      '80/TCP,443/TCP',
      'app=web,tier=a',
    ]);
    expect([...rows['external']!.slice(0, 5), rows['external']![6]]).to.deep.equal([
      'external',
      'ExternalName',
      '<none>',
      'db.example.com',
      '<none>',
      '<none>',
    ]);

    const namespaces = await table(`/api/v1/namespaces/${namespace}`);
    expect(shape(namespaces)).to.deep.equal([
      ['Name', 'string', 'name', 0],
      ['Status', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
    expect(namespaces.columnDefinitions[1]!.description).to.equal('The status of the namespace');
    expect(namespaces.rows.map((r) => r.cells.slice(0, 2))).to.deep.equal([[namespace, 'Active']]);

    await create(`/api/v1/namespaces/${namespace}/configmaps`, {
      metadata: { name: 'settings' },
      data: { a: '1', b: '2' },
      binaryData: { c: 'AA==' },
    });
    const configMaps = await table(`/api/v1/namespaces/${namespace}/configmaps`);
    expect(shape(configMaps)).to.deep.equal([
      ['Name', 'string', 'name', 0],
      ['Data', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
    expect(configMaps.rows.map((r) => r.cells.slice(0, 2)).filter(([name]) => name === 'settings')).to.deep.equal([['settings', 3]]);
  });

  it("evaluates a CRD's printer columns as Kubernetes JSONPath: filters, types, missing values and Go's comparison errors", async () => {
    const { apiextensions, custom, namespace } = fixture();
    const group = `${uniqueName('tp')}.kindex.test`;
    // client-node's model names the extension x_kubernetes_preserve_unknown_fields (its serializer drops unknown keys).
    const open = { type: 'object', x_kubernetes_preserve_unknown_fields: true };
    await apiextensions.createCustomResourceDefinition({
      body: {
        metadata: { name: `widgets.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'widgets', kind: 'Widget' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
              additionalPrinterColumns: [
                { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
                { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason', priority: 1 },
                { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
                { name: 'Scale', type: 'integer', jsonPath: '.spec.ratio' },
                { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio', description: 'the ratio' },
                { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused' },
                { name: 'Replicas Text', type: 'string', jsonPath: '.spec.replicas' },
                { name: 'Tags', type: 'string', jsonPath: '.spec.tags' },
                { name: 'Second Tag', type: 'string', jsonPath: '.spec.tags[1]' },
                { name: 'Missing', type: 'string', jsonPath: '.spec.missing' },
                { name: 'Current', type: 'integer', jsonPath: '.status.conditions[?(@.observedGeneration>=2)].observedGeneration' },
                { name: 'Since', type: 'date', jsonPath: '.status.conditions[?(@.type=="Ready")].lastTransitionTime' },
                { name: 'Float Compare', type: 'string', jsonPath: '.status.conditions[?(@.observedGeneration==2.0)].type' },
              ],
            },
          ],
        },
      },
    });
    await eventually(() => custom.listNamespacedCustomObject({ group, version: 'v1', plural: 'widgets', namespace }), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    const widget = (name: string, status?: object) =>
      custom.createNamespacedCustomObject({
        group,
        version: 'v1',
        plural: 'widgets',
        namespace,
        body: {
          apiVersion: `${group}/v1`,
          kind: 'Widget',
          metadata: { name },
          spec: { replicas: 3, ratio: 2.5, paused: false, tags: ['a', 'b'] },
          ...(status === undefined ? {} : { status }),
        },
      });
    await widget('ready', {
      conditions: [
        { type: 'Progressing', status: 'False', observedGeneration: 1 },
        { type: 'Ready', status: 'True', reason: 'Up', observedGeneration: 2, lastTransitionTime: ago(5 * HOUR) },
      ],
    });
    await widget('new');
    const t = await table(`/apis/${group}/v1/namespaces/${namespace}/widgets`);
    expect(shape(t)).to.deep.equal([
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Reason', 'string', '', 1],
      ['Replicas', 'integer', '', 0],
      ['Scale', 'integer', '', 0],
      ['Ratio', 'number', '', 0],
      ['Paused', 'boolean', '', 0],
      ['Replicas Text', 'string', '', 0],
      ['Tags', 'string', '', 0],
      ['Second Tag', 'string', '', 0],
      ['Missing', 'string', '', 0],
      ['Current', 'integer', '', 0],
      ['Since', 'date', '', 0],
      ['Float Compare', 'string', '', 0],
    ]);
    expect(t.columnDefinitions[1]!.description).to.equal(
      'Custom resource definition column (in JSONPath format): .status.conditions[?(@.type=="Ready")].status',
    );
    expect(t.columnDefinitions[5]!.description).to.equal('the ratio');
    const rows = Object.fromEntries(t.rows.map((r) => [r.object.metadata.name, r.cells]));
    // kube-apiserver printed an empty Ready column here before the filter was evaluated.
    expect(rows['ready']).to.deep.equal(['ready', 'True', 'Up', 3, 2, 2.5, false, '3', '["a","b"]', 'b', null, 2, '5h', null]);
    expect(rows['new']).to.deep.equal(['new', null, null, 3, 2, 2.5, false, '3', '["a","b"]', 'b', null, null, null, null]);
  });
});
