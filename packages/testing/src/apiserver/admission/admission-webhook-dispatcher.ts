// The embedded server's admission webhooks, as kube-apiserver's MutatingAdmissionWebhook and
// ValidatingAdmissionWebhook plugins run them (k8s.io/apiserver/pkg/admission/plugin/webhook):
// configurations sorted by name, mutating webhooks one after another with one reinvocation round
// for `reinvocationPolicy: IfNeeded`, validating webhooks in parallel, `failurePolicy`,
// `sideEffects` under dry run, denials and warnings. Configurations are read from the server's own
// store and cached until a write to them.

import { randomUUID } from 'node:crypto';
import { jsonEqual } from '@kindex/core/internal';
import { metaOf } from '../machinery/object-meta.js';
import type { Json, ObjectStore } from '../storage/object-store.js';
import { applyPatch } from '../machinery/patch.js';
import type { UserInfo } from '../filters/request-attributes.js';
import type { ResourceType } from '../storage/resource-registry.js';
import { ApiStatusError, qualifiedResource, type StatusDetails } from '../storage/status-error.js';
import { requestAuthorizer, type AuthorizeFunction } from './webhook-match-authorizer.js';
import { evaluateMatchConditions } from './webhook-match-conditions.js';
import { WebhookCallError, type WebhookHttpClient } from '../webhook/webhook-http-client.js';
import { matchingVersion, ruleMatches, selectorsMatch, webhooksOf, type AdmissionWebhook, type RuleAttributes } from './webhook-rules.js';

/** The store ids of the two configuration kinds. */
export const MUTATING_CONFIGURATIONS = 'admissionregistration.k8s.io/mutatingwebhookconfigurations';
export const VALIDATING_CONFIGURATIONS = 'admissionregistration.k8s.io/validatingwebhookconfigurations';

/** One request as admission sees it (kube-apiserver's admission.Attributes). */
export interface AdmissionAttributes {
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE';
  readonly type: ResourceType;
  readonly version: string;
  readonly namespace: string | undefined;
  /** The name in the path; a create takes the object's. */
  readonly name: string | undefined;
  readonly subresource: string | undefined;
  readonly dryRun: boolean;
  readonly user: UserInfo;
  /** The fields of the request's options; their kind follows the operation (a PATCH is admitted with UpdateOptions, as kube-apiserver does). */
  readonly options: Json;
}

/** What admission changed and said. */
export interface AdmissionOutcome {
  readonly object: Json | undefined;
  readonly warnings: readonly string[];
}

// What `/scale` reads and writes, for every kind that has one.
const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' } as const;

const OPTIONS_KIND = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' } as const;

/**
 * Resources that are one resource under another name (kube-apiserver's equivalent resources: the
 * same storage), such as core/v1 and events.k8s.io/v1 Events: a webhook for one is called for
 * writes of the other under `matchPolicy: Equivalent`, with the object converted.
 */
export interface EquivalentResources {
  /** The other resources `t` is equivalent to. */
  equivalents(t: ResourceType): readonly ResourceType[];
  /** `object` as resource `to` shows it. */
  convert(object: Readonly<Json>, to: ResourceType): Json;
}

/** The resource and version a webhook is called for. */
interface Target {
  readonly type: ResourceType;
  readonly version: string;
}

interface Invocation {
  readonly hook: AdmissionWebhook;
  /** What the webhook gets the object as (another version, or resource, under `matchPolicy: Equivalent`). */
  readonly target: Target;
  /**
   * Whether its matchConditions are still to be evaluated: they see the object converted to the
   * webhook's version, and a conversion by webhook cannot be waited for here.
   */
  readonly conditionsPending: boolean;
}

/**
 * The conversion of custom resources whose CRD converts by webhook (apiextensions/crd-conversion.ts),
 * for webhooks registered for another version than the request's.
 */
export interface ObjectConversion {
  /** Whether `t`'s objects are converted by webhook. */
  converts(t: ResourceType): boolean;
  /** `objects` in `version`. */
  convert(t: ResourceType, objects: readonly Json[], version: string): Promise<Json[]>;
}

/** Calls the admission webhooks of the configurations stored in `store`. */
export class AdmissionWebhookDispatcher {
  #mutating: AdmissionWebhook[] | undefined;
  #validating: AdmissionWebhook[] | undefined;

  constructor(
    private readonly store: ObjectStore,
    private readonly http: WebhookHttpClient,
    /** Converts custom resources whose CRD has a conversion webhook, for webhooks of another version. */
    private readonly conversion?: ObjectConversion,
    /** The server's authorization, for the `authorizer` of matchConditions; allows everything when not given. */
    private readonly authorize: AuthorizeFunction = () => ({ allowed: true, reason: '' }),
    /** Resources equivalent to others; none when not given. */
    private readonly equivalence?: EquivalentResources,
  ) {
    store.subscribe((e) => {
      if (e.typeId === MUTATING_CONFIGURATIONS) this.#mutating = undefined;
      if (e.typeId === VALIDATING_CONFIGURATIONS) this.#validating = undefined;
    });
  }

  /** Whether no webhook is configured: writes then skip admission altogether. */
  get idle(): boolean {
    return this.hooks(true).length === 0 && this.hooks(false).length === 0;
  }

  // kube-apiserver orders configurations by name, and webhooks as their configuration lists them.
  private hooks(mutating: boolean): AdmissionWebhook[] {
    const cached = mutating ? this.#mutating : this.#validating;
    if (cached !== undefined) return cached;
    const configurations = [...this.store.list(mutating ? MUTATING_CONFIGURATIONS : VALIDATING_CONFIGURATIONS, undefined)]
      .map((o) => o.obj)
      .sort((a, b) => String(metaOf(a)['name']).localeCompare(String(metaOf(b)['name'])));
    const hooks = configurations.flatMap((c) => webhooksOf(c, mutating));
    if (mutating) this.#mutating = hooks;
    else this.#validating = hooks;
    return hooks;
  }

  /**
   * The webhooks of one kind that a request may reach; those whose matchConditions need a
   * converted object are included unevaluated (`conditionsPending`, see {@link reached}).
   */
  invocations(
    mutating: boolean,
    a: AdmissionAttributes,
    object: Readonly<Json> | undefined,
    old: Readonly<Json> | undefined,
  ): Invocation[] {
    const rules = {
      operation: a.operation,
      group: a.type.group,
      version: a.version,
      resource: a.type.resource,
      subresource: a.subresource ?? '',
      namespace: a.type.namespaced ? a.namespace : undefined,
    };
    const namespaceLabels = this.namespaceLabels(a, object);
    const labels = [object, old].map((o) =>
      o === undefined ? undefined : ((metaOf(o)['labels'] as Record<string, string> | undefined) ?? {}),
    );
    const found: Invocation[] = [];
    for (const hook of this.hooks(mutating)) {
      const target = this.matchingTarget(hook, rules, a);
      if (target === undefined || !selectorsMatch(hook, namespaceLabels, labels)) continue;
      if (hook.matchConditions.length > 0 && this.convertsBetween(a, target.version, object)) {
        found.push({ hook, target, conditionsPending: true });
        continue;
      }
      const [shown, shownOld] = [object, old].map((o) => (o === undefined ? undefined : this.acrossResources(o, a, target.type)));
      if (this.conditionsHold(hook, a, target, shown, shownOld)) found.push({ hook, target, conditionsPending: false });
    }
    return found;
  }

  // The resource and version a webhook is called for: the request's, another version of its
  // resource, or under `matchPolicy: Equivalent` a version of an equivalent resource.
  private matchingTarget(hook: AdmissionWebhook, rules: RuleAttributes, a: AdmissionAttributes): Target | undefined {
    const version = matchingVersion(hook, rules, a.type.versions);
    if (version !== undefined) return { type: a.type, version };
    if (hook.matchPolicy === 'Exact') return undefined;
    for (const type of this.equivalence?.equivalents(a.type) ?? []) {
      const as = { ...rules, group: type.group, resource: type.resource };
      const v = type.versions.find((candidate) => hook.rules.some((r) => ruleMatches(r, { ...as, version: candidate })));
      if (v !== undefined) return { type, version: v };
    }
    return undefined;
  }

  // The object as an equivalent resource shows it (unchanged for the request's own resource).
  private acrossResources(object: Readonly<Json>, a: AdmissionAttributes, to: ResourceType): Json {
    if (to.id === a.type.id || this.equivalence === undefined || isScale(object)) return object;
    return this.equivalence.convert(object, to);
  }

  /** The webhooks of one kind that a request reaches, matchConditions evaluated on converted objects. */
  private async reached(
    mutating: boolean,
    a: AdmissionAttributes,
    object: Readonly<Json> | undefined,
    old: Readonly<Json> | undefined,
  ): Promise<Invocation[]> {
    const found: Invocation[] = [];
    for (const invocation of this.invocations(mutating, a, object, old)) {
      if (!invocation.conditionsPending) {
        found.push(invocation);
        continue;
      }
      const { hook, target } = invocation;
      const [converted, convertedOld] = await Promise.all(
        [object, old].map((o) => (o === undefined ? Promise.resolve(undefined) : this.inTarget(structuredClone(o) as Json, a, target))),
      );
      if (this.conditionsHold(hook, a, target, converted, convertedOld)) found.push({ ...invocation, conditionsPending: false });
    }
    return found;
  }

  // Whether the object is converted by the CRD's conversion webhook for a webhook of `version`.
  private convertsBetween(a: AdmissionAttributes, version: string, object: Readonly<Json> | undefined): boolean {
    if (version === a.version || this.conversion?.converts(a.type) !== true) return false;
    return object === undefined || !isScale(object);
  }

  // matchConditions: false skips the webhook; an evaluation error fails the request (403) unless
  // the webhook's failurePolicy is Ignore.
  private conditionsHold(
    hook: AdmissionWebhook,
    a: AdmissionAttributes,
    target: Target,
    object: Readonly<Json> | undefined,
    old: Readonly<Json> | undefined,
  ): boolean {
    if (hook.matchConditions.length === 0) return true;
    const request = this.request('', a, target, object, old);
    const t = a.type;
    const name = typeof request['name'] === 'string' ? request['name'] : '';
    // `authorizer.requestResource` is the resource the webhook is called for.
    const authorizer = requestAuthorizer(a.user, this.authorize, {
      group: target.type.group,
      resource: target.type.resource,
      subresource: a.subresource ?? '',
      namespace: t.namespaced ? (a.namespace ?? '') : '',
      name,
    });
    const decision = evaluateMatchConditions(hook.matchConditions, request, authorizer);
    if (decision.kind !== 'error') return decision.kind === 'call';
    if (hook.failurePolicy === 'Ignore') return false;
    const what = qualifiedResource(t.resource, t.group);
    throw new ApiStatusError(403, 'Forbidden', `${what}${name === '' ? '' : ` "${name}"`} is forbidden: ${decision.message}`, {
      ...(name === '' ? {} : { name }),
      group: t.group,
      kind: t.resource,
    });
  }

  // A namespace's own labels when it is the object written; none for other cluster-scoped objects.
  private namespaceLabels(a: AdmissionAttributes, object: Readonly<Json> | undefined): Record<string, string> | undefined {
    if (a.type.id === '/namespaces' && (a.subresource ?? '') === '' && a.operation !== 'DELETE' && object !== undefined) {
      return (metaOf(object)['labels'] as Record<string, string> | undefined) ?? {};
    }
    const name = a.type.id === '/namespaces' ? a.name : a.type.namespaced ? a.namespace : undefined;
    if (name === undefined) return undefined;
    return (metaOf(this.store.get('/namespaces', name)?.obj ?? {})['labels'] as Record<string, string> | undefined) ?? {};
  }

  /**
   * Runs the mutating webhooks in order, then once more those with `reinvocationPolicy: IfNeeded`
   * that ran before a later webhook changed the object. Returns the object as they left it.
   */
  async mutate(a: AdmissionAttributes, object: Json | undefined, old: Json | undefined): Promise<AdmissionOutcome> {
    const warnings: string[] = [];
    const invoked = new Set<string>();
    let reinvoke = new Set<string>();
    let changedInRound = false;
    let current = object;
    for (const round of [0, 1]) {
      if (round === 1 && !(changedInRound && reinvoke.size > 0)) break;
      const toReinvoke = reinvoke;
      reinvoke = new Set();
      for (const { hook, target } of await this.reached(true, a, current, old)) {
        if (round === 1 && !toReinvoke.has(hook.uid)) continue;
        const answer = await this.call(hook, a, target, current, old);
        if (answer === undefined) continue;
        warnings.push(...answer.warnings);
        const patched =
          answer.patch === undefined || current === undefined ? current : await this.patched(hook, a, target, current, answer.patch);
        if (patched !== current && !jsonEqual(patched, current)) {
          changedInRound = true;
          for (const uid of invoked) reinvoke.add(uid);
          invoked.clear();
          current = patched;
        }
        if (hook.reinvocationPolicy === 'IfNeeded') invoked.add(hook.uid);
      }
    }
    return { object: current, warnings };
  }

  /** Runs the validating webhooks in parallel; the first refusal (in configuration order) fails the request. */
  async validate(a: AdmissionAttributes, object: Json | undefined, old: Json | undefined): Promise<AdmissionOutcome> {
    const results = await Promise.allSettled(
      (await this.reached(false, a, object, old)).map(({ hook, target }) => this.call(hook, a, target, object, old)),
    );
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
    const warnings = results.flatMap((r) => (r.status === 'fulfilled' && r.value !== undefined ? r.value.warnings : []));
    return { object, warnings };
  }

  // Applies a mutating webhook's JSON patch to the object in the webhook's version, and converts
  // the result back to the version the object came in.
  private async patched(hook: AdmissionWebhook, a: AdmissionAttributes, target: Target, object: Json, patch: unknown): Promise<Json> {
    let result: Json;
    try {
      result = applyPatch(await this.inTarget(object, a, target), 'json', patch);
    } catch (e) {
      if (e instanceof ApiStatusError && e.code === 500) throw e; // a failed conversion
      const why = `failed calling webhook "${hook.name}": JSONPatch of the webhook's answer failed: ${(e as Error).message}`;
      throw internalError(why);
    }
    const back =
      String(object['apiVersion'] ?? '')
        .split('/')
        .pop() ?? a.version;
    if (target.type.id !== a.type.id) return this.acrossResources(result, { ...a, type: target.type }, a.type);
    return this.inVersion(result, a.type, back);
  }

  // The object as the webhook gets it: in the target's version, of the target's resource.
  private async inTarget(object: Json, a: AdmissionAttributes, target: Target): Promise<Json> {
    if (target.type.id !== a.type.id) return this.acrossResources(object, a, target.type);
    return this.inVersion(object, a.type, target.version);
  }

  // The object as another version of its resource shows it: converted by the CRD's conversion
  // webhook when it has one, else only relabelled (the versions then share a schema).
  private async inVersion(object: Json, t: ResourceType, version: string): Promise<Json> {
    if (isScale(object)) return object;
    const apiVersion = t.group === '' ? version : `${t.group}/${version}`;
    if (object['apiVersion'] === apiVersion) return object;
    if (this.conversion?.converts(t) === true) return (await this.conversion.convert(t, [object], version))[0]!;
    return relabelled(object, t, version);
  }

  /**
   * One call: undefined when the call failed under `failurePolicy: Ignore`; throws the request's
   * error when the webhook refused it or failed under `Fail`.
   */
  private async call(
    hook: AdmissionWebhook,
    a: AdmissionAttributes,
    target: Target,
    object: Json | undefined,
    old: Json | undefined,
  ): Promise<{ patch: unknown; warnings: string[] } | undefined> {
    const reviewVersion = ['v1', 'v1beta1'].find((v) => hook.admissionReviewVersions.includes(v));
    if (reviewVersion === undefined) {
      return this.failed(
        hook,
        `webhook does not accept known AdmissionReview versions: it lists ${JSON.stringify(hook.admissionReviewVersions)}; add "v1" to admissionReviewVersions`,
      );
    }
    const uid = randomUUID();
    const review = {
      apiVersion: `admission.k8s.io/${reviewVersion}`,
      kind: 'AdmissionReview',
      request: this.request(
        uid,
        a,
        target,
        object === undefined ? undefined : await this.inTarget(object, a, target),
        old === undefined ? undefined : await this.inTarget(old, a, target),
      ),
    };
    let answer: Json;
    try {
      answer = await this.http.call(hook, review);
    } catch (e) {
      if (e instanceof WebhookCallError) return this.failed(hook, e.message);
      throw e;
    }
    const response = answer['response'] as Json | undefined;
    const invalid = responseProblem(answer, reviewVersion, uid, response);
    if (invalid !== undefined) return this.failed(hook, `received invalid webhook response: ${invalid}`);
    const warnings = Array.isArray(response!['warnings']) ? (response!['warnings'] as unknown[]).map(String) : [];
    if (response!['allowed'] !== true) throw denied(hook.name, response!['status'] as Json | undefined);
    const patchText = response!['patch'];
    if (typeof patchText !== 'string' || patchText === '') return { patch: undefined, warnings };
    if (response!['patchType'] !== 'JSONPatch') {
      return this.failed(hook, 'received invalid webhook response: webhook returned response.patch but not response.patchType');
    }
    try {
      return { patch: JSON.parse(Buffer.from(patchText, 'base64').toString('utf8')) as unknown, warnings };
    } catch (e) {
      return this.failed(hook, `received invalid webhook response: response.patch is not base64 JSON: ${(e as Error).message}`);
    }
  }

  // A call that failed: ignored under `failurePolicy: Ignore`, a 500 naming the webhook under `Fail`.
  private failed(hook: AdmissionWebhook, reason: string): undefined {
    if (hook.failurePolicy === 'Ignore') return undefined;
    throw internalError(`failed calling webhook "${hook.name}": ${reason}`);
  }

  // The AdmissionReview request, with Go's omitempty on the optional strings.
  private request(uid: string, a: AdmissionAttributes, target: Target, object: Json | undefined, old: Json | undefined): Json {
    const t = a.type;
    const { type: to, version } = target;
    const name = a.name ?? (object === undefined ? undefined : (metaOf(object)['name'] as string | undefined));
    const sub = a.subresource ?? '';
    return {
      uid,
      kind: sub === 'scale' ? SCALE_KIND : { group: to.group, version, kind: to.kind },
      resource: { group: to.group, version, resource: to.resource },
      ...(sub === '' ? {} : { subResource: sub }),
      requestKind: sub === 'scale' ? SCALE_KIND : { group: t.group, version: a.version, kind: t.kind },
      requestResource: { group: t.group, version: a.version, resource: t.resource },
      ...(sub === '' ? {} : { requestSubResource: sub }),
      ...(name === undefined || name === '' ? {} : { name }),
      ...(t.namespaced && a.namespace !== undefined ? { namespace: a.namespace } : {}),
      operation: a.operation,
      userInfo: {
        username: a.user.username,
        ...(a.user.uid === undefined ? {} : { uid: a.user.uid }),
        groups: a.user.groups,
        ...(a.user.extra === undefined ? {} : { extra: a.user.extra }),
      },
      object: object === undefined ? null : relabelled(object, to, version),
      oldObject: old === undefined ? null : relabelled(old, to, version),
      dryRun: a.dryRun,
      options: { kind: OPTIONS_KIND[a.operation], apiVersion: 'meta.k8s.io/v1', ...a.options },
    };
  }
}

// The object labelled with another version of its resource: the conversion of versions that share
// a schema (objects that a conversion webhook converts were converted before they get here).
function relabelled(object: Readonly<Json>, t: ResourceType, version: string): Json {
  if (isScale(object)) return { ...object };
  return { ...object, apiVersion: t.group === '' ? version : `${t.group}/${version}` };
}

// A Scale is autoscaling/v1 whatever the version of the object it scales.
function isScale(object: Readonly<Json>): boolean {
  return object['kind'] === SCALE_KIND.kind && object['apiVersion'] === `${SCALE_KIND.group}/${SCALE_KIND.version}`;
}

function responseProblem(answer: Json, reviewVersion: string, uid: string, response: Json | undefined): string | undefined {
  if (answer['apiVersion'] !== `admission.k8s.io/${reviewVersion}` || answer['kind'] !== 'AdmissionReview') {
    return `expected webhook response of admission.k8s.io/${reviewVersion}, Kind=AdmissionReview, got ${String(answer['apiVersion'] ?? '')}, Kind=${String(answer['kind'] ?? '')}`;
  }
  if (response === undefined || response === null || typeof response !== 'object') return 'webhook response was absent';
  if (response['uid'] !== uid) return `expected response.uid="${uid}", got "${String(response['uid'] ?? '')}"`;
  return undefined;
}

function internalError(message: string): ApiStatusError {
  return new ApiStatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

// kube-apiserver's webhookerrors.ToStatusErr: the webhook's status, at least 400, its message prefixed.
function denied(name: string, status: Json | undefined): ApiStatusError {
  const code = typeof status?.['code'] === 'number' && status['code'] >= 400 ? status['code'] : 400;
  const message = typeof status?.['message'] === 'string' && status['message'] !== '' ? status['message'] : undefined;
  const reason = typeof status?.['reason'] === 'string' ? status['reason'] : '';
  const deniedBy = `admission webhook "${name}" denied the request`;
  const text =
    message !== undefined ? `${deniedBy}: ${message}` : reason !== '' ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const details = status?.['details'] as StatusDetails | undefined;
  return new ApiStatusError(code, reason, text, details);
}
