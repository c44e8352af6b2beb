import { expect } from 'chai';
import { KubeApiError } from '../client/kube-api-error.js';
import { CacheSyncError, CacheSyncTimeoutError, StartAbortedError } from './startup-errors.js';

const jobs = { group: 'batch.example.com', version: 'v1', plural: 'jobs', kind: 'Job', namespaced: true };
const where = {
  controller: 'jobs',
  eventSource: 'primary',
  type: jobs,
  namespace: 'team-a',
  labelSelector: undefined,
  fieldSelector: undefined,
  phase: 'startup' as const,
};

describe('startup errors', () => {
  it('KubeApiError knows the verb and whether retrying can help', () => {
    const list = new KubeApiError('GET', '/apis/batch.example.com/v1/namespaces/a/jobs?limit=500', 403, 'Forbidden', 'no');
    const watch = new KubeApiError('GET', '/api/v1/configmaps?watch=true&resourceVersion=5', 500, undefined, 'boom');
    const get = new KubeApiError('GET', '/api/v1/namespaces/a/configmaps/x', 404, 'NotFound', 'gone');
    expect([list.verb, watch.verb, get.verb]).to.deep.equal(['list', 'watch', 'get']);
    expect([list.nonTransient, watch.nonTransient, get.nonTransient]).to.deep.equal([true, false, true]);
    expect(new KubeApiError('GET', '/api/v1/pods', 429, 'TooManyRequests', 'slow').nonTransient).to.equal(false);
    expect(new KubeApiError('GET', '/api/v1/pods', 401, 'Unauthorized', 'who').nonTransient).to.equal(true);
    expect(new KubeApiError('GET', '/api/v1/pods', 400, 'BadRequest', 'bad').nonTransient).to.equal(true);
  });

  it('403: the message names everything and ends with a Role bound to the user the server named', () => {
    const server =
      'jobs.batch.example.com is forbidden: User "system:serviceaccount:ops:op" cannot list resource "jobs" in API group "batch.example.com" in the namespace "team-a"';
    const e = CacheSyncError.from(
      new KubeApiError('GET', '/apis/batch.example.com/v1/namespaces/team-a/jobs?limit=500', 403, 'Forbidden', server),
      where,
    );
    expect(e.message.split('\n')[0]).to.equal(
      `controller "jobs", event source "primary" cannot start: list jobs.batch.example.com/v1 (kind Job) in namespace "team-a" failed with 403 Forbidden: ${server}`,
    );
    expect(e.serverMessage).to.equal(server);
    expect(e.fix).to.contain('grant ServiceAccount ops/op list and watch on jobs.batch.example.com with a Role in namespace "team-a"');
    expect(e.fix).to.contain(
      'kind: Role\nmetadata:\n  name: jobs-reader\n  namespace: team-a\nrules:\n  - apiGroups:\n      - batch.example.com\n    resources:\n      - jobs\n    verbs:\n      - list\n      - watch',
    );
    expect(e.fix).to.contain('kind: RoleBinding').and.contain('name: op\n    namespace: ops');
  });

  it('404 names the CRD, 400 the selector and reason, 401 the credentials', () => {
    const notFound = CacheSyncError.from(
      new KubeApiError('GET', '/apis/batch.example.com/v1/jobs', 404, 'NotFound', 'the server could not find the requested resource'),
      { ...where, namespace: undefined },
    );
    expect(notFound.fix).to.contain('CustomResourceDefinition jobs.batch.example.com').and.contain("whenCrdMissing: 'wait'");
    expect(notFound.message).to.contain('in all namespaces');
    const core404 = CacheSyncError.from(new KubeApiError('GET', '/api/v1/widgets', 404, 'NotFound', 'x'), {
      ...where,
      type: { ...jobs, group: '', plural: 'widgets' },
    });
    expect(core404.fix).to.contain('kubectl api-resources');
    const bad = CacheSyncError.from(new KubeApiError('GET', '/api/v1/pods', 400, 'BadRequest', 'unable to parse requirement'), {
      ...where,
      labelSelector: 'a in (',
    });
    expect(bad.fix).to.contain('label selector "a in ("').and.contain('unable to parse requirement');
    const who = CacheSyncError.from(new KubeApiError('GET', '/api/v1/pods', 401, 'Unauthorized', 'Unauthorized'), where);
    expect(who.fix).to.contain('credentials');
  });

  it("another cluster's 401 names it and its kubeconfig, not the pod's token; its 403 and 404 say where to act", () => {
    const cluster = { name: 'eu-1', credentials: 'the kubeconfig from Secret fleet/eu-1' };
    const who = CacheSyncError.from(new KubeApiError('GET', '/api/v1/pods', 401, 'Unauthorized', 'Unauthorized'), where).withContext({
      cluster,
    });
    expect(who.cluster).to.deep.equal(cluster);
    expect(who.message.split('\n')[0]).to.match(/^controller "jobs", event source "primary", cluster eu-1 cannot start: list /);
    expect(who.fix).to.equal(
      "Fix: cluster eu-1 did not accept the credentials in the kubeconfig from Secret fleet/eu-1: check its token, client certificate and expiry there (the pod's service account token is not used for this cluster).",
    );
    const denied = CacheSyncError.from(new KubeApiError('GET', '/api/v1/pods', 403, 'Forbidden', 'no'), { ...where, cluster });
    expect(denied.fix).to.match(/^Fix: in cluster eu-1, grant the user of the kubeconfig from Secret fleet\/eu-1 list and watch on jobs/);
    expect(denied.fix).to.contain('what each other cluster must grant');
    const missing = CacheSyncError.from(new KubeApiError('GET', '/apis/batch.example.com/v1/jobs', 404, 'NotFound', 'x'), {
      ...where,
      cluster,
    });
    expect(missing.fix).to.match(/^Fix: in cluster eu-1, install the CustomResourceDefinition jobs.batch.example.com/);
    // A remote source's name says its cluster already: not twice.
    const remote = CacheSyncError.from(new KubeApiError('GET', '/api/v1/pods', 401, 'Unauthorized', 'no'), {
      ...where,
      eventSource: 'job-config on cluster eu-1',
      cluster,
    });
    expect(remote.message).to.match(/^controller "jobs", event source "job-config on cluster eu-1" cannot start/);
  });

  it('withContext fills in only what is missing; a running failure says access was lost', () => {
    const e = CacheSyncError.from(new KubeApiError('GET', '/api/v1/pods?watch=true', 403, 'Forbidden', 'no'), {
      ...where,
      controller: undefined,
      eventSource: 'pods',
    });
    const c = e.withContext({ controller: 'c', eventSource: 'other', phase: 'running' });
    expect(c).to.include({ controller: 'c', eventSource: 'pods', phase: 'running', verb: 'watch' });
    expect(c.message).to.match(/^controller "c", event source "pods" lost access: watch/);
    expect(c.cause).to.equal(e.cause);
  });

  it('timeout and abort errors say what is pending and why', () => {
    const t = new CacheSyncTimeoutError('jobs', 1000, [
      { eventSource: 'primary', kind: 'jobs.batch.example.com/v1', namespaces: ['a', ''], lastError: '503' },
    ]);
    expect(t.message).to.contain(
      'controller "jobs": caches not synced after 1000 ms: primary (jobs.batch.example.com/v1 in namespace a, all namespaces), last error: 503',
    );
    expect(new StartAbortedError('controller "jobs"', 'stopped').message).to.contain('ended by stop()');
  });
});
