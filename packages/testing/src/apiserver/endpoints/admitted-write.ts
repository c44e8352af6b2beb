// Runs one write of the (synchronous) registry verbs with asynchronous admission webhooks at
// the points kube-apiserver calls them: mutating admission on the object as decoded (or patched,
// for an update) before the strategy validates it, validating admission on the validated object
// just before it is stored.
//
// The handler cannot wait for a webhook, so the write is replayed: a pass that reaches an
// admission point whose answer is not known yet stops there (PendingAdmission), the webhooks are
// called, and the write runs again from the start with their answers. A pass that reaches a point
// with a different input than the webhooks saw (another write got in between) calls them again, as
// kube-apiserver's GuaranteedUpdate re-runs admission after a conflict. Nothing is stored until a
// pass reaches the end, so the passes before it have no effect; the values a pass generates (a
// generated name, the uid, the creation time) are kept for the next, so validating webhooks see
// what is stored.

import { jsonEqual } from '@kindex/core/internal';
import type { AdmissionAttributes, AdmissionWebhookDispatcher } from '../admission/admission-webhook-dispatcher.js';
import type { Json } from '../storage/object-store.js';
import type { UserInfo } from '../filters/request-attributes.js';
import type { JsonResponse } from '../machinery/json-response.js';
import type { ResourceRequest, WriteAdmission } from '../registry/resource-request.js';
import { ApiStatusError } from '../storage/status-error.js';

class PendingAdmission extends Error {
  override readonly name = 'PendingAdmission';
  constructor(readonly work: () => Promise<void>) {
    super('admission webhooks are to be called before this write goes on');
  }
}

// Enough for admission plus a few interleaved writes; past it the write answers 409 as a
// GuaranteedUpdate that kept losing would.
const MAX_PASSES = 8;

/**
 * Runs `write` with the webhooks of `dispatcher` admitting it, and returns its response with the
 * webhooks' warnings added.
 */
export async function admitWrite(
  dispatcher: AdmissionWebhookDispatcher,
  attributes: Omit<AdmissionAttributes, 'operation'>,
  write: (admission: WriteAdmission) => JsonResponse,
): Promise<JsonResponse> {
  const generated = new Map<string, unknown>();
  let mutated: { input: [Json, Json | undefined]; output: Json; warnings: readonly string[] } | undefined;
  // The inputs the validating webhooks admitted (one per object of a deletecollection), and their warnings.
  const validated = new Map<string, readonly string[]>();
  // The validated inputs the passes went through, in order: a deletecollection's later passes
  // skip the objects deleted by earlier ones, whose warnings still count.
  const used = new Set<string>();
  const admission: WriteAdmission = {
    mutate(operation, object, old) {
      const a = { ...attributes, operation };
      if (dispatcher.invocations(true, a, object, old).length === 0) return object;
      if (mutated !== undefined && jsonEqual(mutated.input, [object, old])) return structuredClone(mutated.output);
      const input: [Json, Json | undefined] = structuredClone([object, old]);
      throw new PendingAdmission(async () => {
        const outcome = await dispatcher.mutate(a, structuredClone(input[0]), structuredClone(input[1]));
        mutated = { input, output: outcome.object ?? input[0], warnings: outcome.warnings };
      });
    },
    validate(operation, object, old) {
      const a = { ...attributes, operation };
      // An object of a deletecollection goes through the mutating webhooks too (their answer changes nothing).
      const mutating = operation === 'DELETE' && dispatcher.invocations(true, a, object, old).length > 0;
      if (!mutating && dispatcher.invocations(false, a, object, old).length === 0) return;
      const key = JSON.stringify([object ?? null, old ?? null]);
      if (validated.has(key)) {
        used.add(key);
        return;
      }
      const input = structuredClone([object, old]) as [Json | undefined, Json | undefined];
      throw new PendingAdmission(async () => {
        const before = mutating ? (await dispatcher.mutate(a, undefined, input[1])).warnings : [];
        const outcome = await dispatcher.validate(a, input[0], input[1]);
        validated.set(key, [...before, ...outcome.warnings]);
      });
    },
    once(key, make) {
      if (!generated.has(key)) generated.set(key, make());
      return generated.get(key) as ReturnType<typeof make>;
    },
  };
  // Each pass either ends or calls webhooks for an input not seen before; past MAX_PASSES passes
  // that add nothing new, inputs keep changing under concurrent writes.
  for (let pass = 0; pass < MAX_PASSES + validated.size; pass++) {
    let response: JsonResponse;
    try {
      response = write(admission);
    } catch (e) {
      if (!(e instanceof PendingAdmission)) throw e;
      await e.work();
      continue;
    }
    const warnings = [...(mutated?.warnings ?? []), ...[...used].flatMap((k) => validated.get(k) ?? []), ...(response.warnings ?? [])];
    return warnings.length === 0 ? response : { ...response, warnings };
  }
  const name = attributes.name ?? '';
  throw new ApiStatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${attributes.type.resource} "${name}": the object kept changing while admission webhooks were called; please apply your changes to the latest version and try again`,
  );
}

/**
 * Admits a DELETE: kube-apiserver calls the mutating webhooks (their patches have nothing to
 * change) and then the validating ones with the object to delete as `oldObject`.
 */
export async function admitDelete(
  dispatcher: AdmissionWebhookDispatcher,
  attributes: Omit<AdmissionAttributes, 'operation'>,
  old: Json,
): Promise<readonly string[]> {
  const a = { ...attributes, operation: 'DELETE' as const };
  const mutating = await dispatcher.mutate(a, undefined, old);
  const validating = await dispatcher.validate(a, undefined, old);
  return [...mutating.warnings, ...validating.warnings];
}

/**
 * Runs one write request (`method` POST, PUT, PATCH or DELETE) through admission: `run` is the
 * handler's verb, `stored` reads the object a DELETE addresses.
 */
export async function admitRequest(
  dispatcher: AdmissionWebhookDispatcher,
  method: string,
  request: ResourceRequest,
  user: UserInfo,
  run: (request: ResourceRequest) => JsonResponse,
  stored: () => Json | undefined,
): Promise<JsonResponse> {
  const fieldManager = request.query.get('fieldManager');
  const options: Json = {
    ...(request.dryRun === true ? { dryRun: ['All'] } : {}),
    ...(fieldManager === null || method === 'DELETE' ? {} : { fieldManager }),
  };
  const attributes = {
    type: request.type,
    version: request.requestedVersion ?? request.version,
    namespace: request.namespace,
    name: request.name,
    subresource: request.subresource,
    dryRun: request.dryRun === true,
    user,
    options,
  };
  if (method !== 'DELETE') return admitWrite(dispatcher, attributes, (admission) => run({ ...request, admission }));
  // deletecollection: each object is admitted as a DELETE without a name, as kube-apiserver's
  // AdmissionToValidateObjectDeleteFunc does.
  if (request.name === undefined) return admitWrite(dispatcher, attributes, (admission) => run({ ...request, admission }));
  const old = stored();
  // A missing object: the handler answers its 404.
  if (old === undefined) return run(request);
  const warnings = await admitDelete(dispatcher, attributes, structuredClone(old));
  const response = run(request);
  return warnings.length === 0 ? response : { ...response, warnings: [...warnings, ...(response.warnings ?? [])] };
}
