// What the resource endpoints work with, built once per server: the registry's storage and the
// stages around its verbs (admission, CRD conversion, the scale subresource, the watch hub, the
// negotiated media), and the few steps several endpoints share.

import type { AdmissionWebhookDispatcher } from '../admission/admission-webhook-dispatcher.js';
import type { CrdConversion } from '../apiextensions/crd-conversion.js';
import type { AccessControl } from '../filters/access-control.js';
import type { JsonResponse } from '../machinery/json-response.js';
import type { ResponseMedia } from '../negotiation/content-negotiation.js';
import { customResourcePrinter } from '../apiextensions/custom-resource-table.js';
import { builtinPrinter, type TablePrinter } from '../negotiation/builtin-table-printers.js';
import { tableVersionOf, toTable } from '../negotiation/table-output.js';
import type { RegistryStorage } from '../registry/registry-storage.js';
import { keyOf, type ResourceRequest } from '../registry/resource-request.js';
import type { ScaleSubresource } from '../registry/scale-subresource.js';
import type { Json } from '../storage/object-store.js';
import type { WatchHub } from '../watch/watch-hub.js';

/** The stages a resource endpoint calls. */
export interface EndpointContext {
  readonly storage: RegistryStorage;
  readonly admission: AdmissionWebhookDispatcher;
  readonly access: AccessControl;
  readonly conversion: CrdConversion;
  readonly scale: ScaleSubresource;
  readonly hub: WatchHub;
  readonly media: ResponseMedia;
}

/** The stored object a request addresses, for admission's oldObject; undefined when missing. */
export function storedObject(ctx: EndpointContext, request: ResourceRequest): Json | undefined {
  const t = request.type;
  return ctx.storage.store.get(t.id, keyOf(t, request.namespace, request.name ?? ''))?.obj;
}

/** The Table printer of a type's version: a built-in's, or the columns its CRD declares now. */
export function printerOf(ctx: EndpointContext, t: ResourceRequest['type'], version: string): TablePrinter {
  if (!t.custom) return builtinPrinter(t.id);
  return customResourcePrinter(
    ctx.storage.store.get('apiextensions.k8s.io/customresourcedefinitions', `${t.resource}.${t.group}`)?.obj,
    version,
  );
}

/** `kubectl get` asks for a Table; anything else gets the objects. */
export function asTableIfAsked(
  ctx: EndpointContext,
  request: ResourceRequest,
  accept: string | undefined,
  answer: JsonResponse,
): JsonResponse {
  const tableVersion = tableVersionOf(accept);
  if (tableVersion === undefined) return answer;
  const printer = printerOf(ctx, request.type, request.version);
  return { status: answer.status, body: JSON.stringify(toTable(JSON.parse(answer.body) as Json, tableVersion, printer)) };
}
