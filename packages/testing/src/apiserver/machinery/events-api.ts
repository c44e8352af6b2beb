// events.k8s.io/v1 Events, served as kube-apiserver serves them: one storage with core/v1 Events,
// each version a view of it. An Event written as events.k8s.io/v1 reads back as core/v1 (note ->
// message, regarding -> involvedObject, reportingController -> reportingComponent, deprecated* ->
// the old fields) and the other way round, the field order and empty values of each version's Go
// struct included. Writes through events.k8s.io/v1 get its strict validation (eventTime required,
// a series of at least 2, type Normal or Warning, reportingController a qualified name) and its
// decoding of metav1.MicroTime (exactly six fractional digits), wording as kube-apiserver 1.36.

import { qualifiedNameErrors } from '@kindex/core/internal';
import type { Json } from '../storage/object-store.js';
import { applyPatch, patchTypeOf } from './patch.js';
import { badRequest, invalid, type StatusCause } from '../storage/status-error.js';

/** The id of the events.k8s.io resource in the registry; its objects live under `/events`. */
export const EVENTS_V1_TYPE_ID = 'events.k8s.io/events';
const API_VERSION = 'events.k8s.io/v1';

const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '';
const orNull = (v: unknown): unknown => (v === undefined ? null : v);

/** A stored (core/v1) Event as events.k8s.io/v1 shows it, without kind and apiVersion. */
export function toEventsV1(core: Readonly<Json>): Json {
  const out: Json = { metadata: core['metadata'], eventTime: orNull(core['eventTime']) };
  if (core['series'] !== undefined && core['series'] !== null) out['series'] = core['series'];
  if (present(core['reportingComponent'])) out['reportingController'] = core['reportingComponent'];
  if (present(core['reportingInstance'])) out['reportingInstance'] = core['reportingInstance'];
  if (present(core['action'])) out['action'] = core['action'];
  if (present(core['reason'])) out['reason'] = core['reason'];
  out['regarding'] = core['involvedObject'] ?? {};
  if (core['related'] !== undefined && core['related'] !== null) out['related'] = core['related'];
  if (present(core['message'])) out['note'] = core['message'];
  if (present(core['type'])) out['type'] = core['type'];
  out['deprecatedSource'] = core['source'] ?? {};
  out['deprecatedFirstTimestamp'] = orNull(core['firstTimestamp']);
  out['deprecatedLastTimestamp'] = orNull(core['lastTimestamp']);
  if (typeof core['count'] === 'number' && core['count'] !== 0) out['deprecatedCount'] = core['count'];
  return out;
}

/** An events.k8s.io/v1 Event as it is stored (core/v1, in the order core/v1 writes it). */
export function toCoreEvent(v1: Readonly<Json>): Json {
  const out: Json = { apiVersion: 'v1', kind: 'Event' };
  if (v1['metadata'] !== undefined) out['metadata'] = v1['metadata'];
  out['involvedObject'] = v1['regarding'] ?? {};
  if (present(v1['reason'])) out['reason'] = v1['reason'];
  if (present(v1['note'])) out['message'] = v1['note'];
  out['source'] = v1['deprecatedSource'] ?? {};
  out['firstTimestamp'] = orNull(v1['deprecatedFirstTimestamp']);
  out['lastTimestamp'] = orNull(v1['deprecatedLastTimestamp']);
  if (typeof v1['deprecatedCount'] === 'number' && v1['deprecatedCount'] !== 0) out['count'] = v1['deprecatedCount'];
  if (present(v1['type'])) out['type'] = v1['type'];
  out['eventTime'] = orNull(v1['eventTime']);
  if (v1['series'] !== undefined && v1['series'] !== null) out['series'] = v1['series'];
  if (present(v1['action'])) out['action'] = v1['action'];
  if (v1['related'] !== undefined && v1['related'] !== null) out['related'] = v1['related'];
  out['reportingComponent'] = v1['reportingController'] ?? '';
  out['reportingInstance'] = v1['reportingInstance'] ?? '';
  return out;
}

/** Rewrites a core/v1 answer (an Event, an EventList or a watch line's object) as events.k8s.io/v1. */
export function answerAsEventsV1(text: string): string {
  const doc = JSON.parse(text) as Json;
  return JSON.stringify(convertDocument(doc));
}

/** A watch line of the core/v1 storage as an events.k8s.io/v1 watch shows it. */
export function watchLineAsEventsV1(line: string): string {
  const event = JSON.parse(line) as Json;
  const object = event['object'] as Json | undefined;
  if (object === undefined || object['kind'] !== 'Event') return line;
  return `${JSON.stringify({ ...event, object: convertDocument(object) })}\n`;
}

function convertDocument(doc: Json): Json {
  if (doc['kind'] === 'Event') return { kind: 'Event', apiVersion: API_VERSION, ...toEventsV1(doc) };
  if (doc['kind'] === 'EventList') {
    const items = (doc['items'] as Json[]).map((item) => toEventsV1(item));
    return { ...doc, apiVersion: API_VERSION, items };
  }
  return doc;
}

/**
 * The body of an events.k8s.io/v1 create or update, checked as kube-apiserver decodes and
 * validates it, and turned into its stored (core/v1) form.
 * @throws ApiStatusError 400 for a body of another kind or version or a MicroTime it cannot
 * parse, 422 for what the strict validation of events.k8s.io/v1 refuses.
 */
export function eventsV1Body(body: unknown, name: string | undefined): Json {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body of the request must be a JSON object');
  const v1 = structuredClone(body) as Json;
  if (v1['apiVersion'] === undefined || v1['apiVersion'] === '') v1['apiVersion'] = API_VERSION;
  if (v1['kind'] === undefined || v1['kind'] === '') v1['kind'] = 'Event';
  if (v1['apiVersion'] !== API_VERSION) {
    throw badRequest(`the API version in the data (${String(v1['apiVersion'])}) does not match the expected API version (${API_VERSION})`);
  }
  if (v1['kind'] !== 'Event') {
    throw badRequest(
      `${String(v1['kind'])} in version "v1" cannot be handled as a Event: no kind "${String(v1['kind'])}" is expected at ${API_VERSION}/events`,
    );
  }
  checkMicroTime(v1['eventTime']);
  checkMicroTime((v1['series'] as Json | undefined)?.['lastObservedTime']);
  const causes = strictCauses(v1);
  if (causes.length > 0) {
    const meta = (v1['metadata'] ?? {}) as Json;
    throw invalid('Event', '', typeof meta['name'] === 'string' ? meta['name'] : (name ?? ''), causes);
  }
  return toCoreEvent(v1);
}

/** A patch addressed to events.k8s.io/v1, applied to the Event's events.k8s.io/v1 view. */
export function patchEventsV1(stored: Readonly<Json>, contentType: string | undefined, patch: unknown): Json {
  const type = patchTypeOf(contentType, false);
  const view: Json = { kind: 'Event', apiVersion: API_VERSION, ...toEventsV1(stored) };
  if (type === 'apply') {
    // Server-side apply of the few fields an Event's writers set: a merge of the configuration.
    return applyPatch(view, 'merge', patch);
  }
  return applyPatch(view, type, patch);
}

// metav1.MicroTime decodes with RFC3339Micro: exactly six fractional digits.
const MICRO_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';
const MICRO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

function checkMicroTime(value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'string' && MICRO_RE.test(value)) return;
  const text = String(value);
  const fraction = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(.*)$/.exec(text);
  const rest = fraction === null ? text : fraction[1]!;
  const as = fraction === null ? MICRO_LAYOUT : '.000000';
  throw badRequest(
    `Event in version "v1" cannot be handled as a Event: parsing time "${text}" as "${MICRO_LAYOUT}": cannot parse "${rest}" as "${as}"`,
  );
}

// pkg/apis/core/validation/events.go: legacyValidateEvent for an Event with eventTime, then the
// checks only events.k8s.io/v1 makes, in that order.
function strictCauses(v1: Json): StatusCause[] {
  const causes: StatusCause[] = [];
  const required = (field: string): void => void causes.push({ reason: 'FieldValueRequired', field, message: 'Required value' });
  const tooLong = (field: string, limit: number): void =>
    void causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: "": can have at most ${limit} characters` });
  const str = (f: string): string => (typeof v1[f] === 'string' ? v1[f] : '');
  if (present(v1['eventTime'])) {
    const controller = str('reportingController');
    if (controller === '') required('reportingController');
    else
      for (const msg of qualifiedNameErrors(controller)) {
        causes.push({
          reason: 'FieldValueInvalid',
          field: 'reportingController',
          message: `Invalid value: ${JSON.stringify(controller)}: ${msg}`,
        });
      }
    if (str('reportingInstance') === '') required('reportingInstance');
    else if (str('reportingInstance').length > 128) tooLong('reportingInstance', 128);
    if (str('action') === '') required('action');
    else if (str('action').length > 128) tooLong('action', 128);
    if (str('reason') === '') required('reason');
    else if (str('reason').length > 128) tooLong('reason', 128);
    if (Buffer.byteLength(str('note')) > 1024) tooLong('note', 1024);
  }
  const series = v1['series'] as Json | undefined | null;
  if (series !== undefined && series !== null) {
    if (!(typeof series['count'] === 'number' && series['count'] >= 2)) {
      causes.push({ reason: 'FieldValueInvalid', field: 'series.count', message: 'Invalid value: "": should be at least 2' });
    }
    if (!present(series['lastObservedTime'])) required('series.lastObservedTime');
  }
  if (!present(v1['eventTime'])) required('eventTime');
  if (v1['type'] !== 'Normal' && v1['type'] !== 'Warning') {
    causes.push({ reason: 'FieldValueInvalid', field: 'type', message: `Invalid value: "": has invalid value: ${str('type')}` });
  }
  if (present(v1['deprecatedFirstTimestamp'])) {
    causes.push({ reason: 'FieldValueInvalid', field: 'firstTimestamp', message: 'Invalid value: "": needs to be unset' });
  }
  if (present(v1['deprecatedLastTimestamp'])) {
    causes.push({ reason: 'FieldValueInvalid', field: 'lastTimestamp', message: 'Invalid value: "": needs to be unset' });
  }
  if (typeof v1['deprecatedCount'] === 'number' && v1['deprecatedCount'] !== 0) {
    causes.push({ reason: 'FieldValueInvalid', field: 'count', message: 'Invalid value: "": needs to be unset' });
  }
  const source = (v1['deprecatedSource'] ?? {}) as Json;
  if (present(source['component']) || present(source['host'])) {
    causes.push({ reason: 'FieldValueInvalid', field: 'source', message: 'Invalid value: "": needs to be unset' });
  }
  return causes;
}
