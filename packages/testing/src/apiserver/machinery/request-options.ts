// Validation of a request's options (ListOptions, CreateOptions, UpdateOptions, PatchOptions,
// DeleteOptions), as kube-apiserver's apimachinery validation does before it reads the body: a 422
// Invalid on the options kind in group meta.k8s.io, with the same field paths and wording
// (k8s.io/apimachinery pkg/apis/meta/v1/validation and pkg/apis/meta/internalversion/validation).

import { invalid, type ApiStatusError, type StatusCause } from '../storage/status-error.js';

/** The options kind a verb decodes its query into. */
export type OptionsKind = 'ListOptions' | 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/** The `fieldValidation` values kube-apiserver accepts, in the order its message lists them. */
const FIELD_VALIDATION_VALUES = ['', 'Ignore', 'Strict', 'Warn'];

/** The options a DELETE carries, from its query and (winning) its DeleteOptions body. */
export interface DeleteOptionValues {
  readonly orphanDependents: unknown;
  readonly propagationPolicy: unknown;
  readonly dryRun: readonly string[];
}

/** Go's field.NotSupported: `Unsupported value: <value>: supported values: "a", "b"`. */
function notSupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
  return {
    reason: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  };
}

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
}

/** The 422 kube-apiserver answers for invalid options, or undefined when they are valid. */
export function optionsError(kind: OptionsKind, causes: readonly StatusCause[]): ApiStatusError | undefined {
  return causes.length === 0 ? undefined : invalid(kind, 'meta.k8s.io', '', [...causes]);
}

/** Problems of `dryRun`: every value must be `All`; the message shows the whole list. */
export function dryRunCauses(values: readonly string[]): StatusCause[] {
  return values.every((v) => v === 'All') ? [] : [notSupported('dryRun', values, ['All'])];
}

/** Problems of the options of a create, update or patch (`dryRun`, `fieldValidation`). */
export function writeOptionsCauses(query: URLSearchParams): StatusCause[] {
  const causes = dryRunCauses(query.getAll('dryRun'));
  const fieldValidation = query.get('fieldValidation') ?? '';
  if (!FIELD_VALIDATION_VALUES.includes(fieldValidation)) {
    causes.push(notSupported('fieldValidation', fieldValidation, FIELD_VALIDATION_VALUES));
  }
  return causes;
}

/** Problems of DeleteOptions: the deprecated orphanDependents excludes propagationPolicy. */
export function deleteOptionsCauses(options: DeleteOptionValues): StatusCause[] {
  const causes: StatusCause[] = [];
  const policy = options.propagationPolicy;
  const orphanSet = options.orphanDependents !== undefined && options.orphanDependents !== null;
  if (orphanSet && policy !== undefined && policy !== null) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'propagationPolicy',
      message: `Invalid value: ${JSON.stringify(policy)}: orphanDependents and deletionPropagation cannot be both set`,
    });
  }
  if (policy !== undefined && policy !== null && policy !== 'Foreground' && policy !== 'Background' && policy !== 'Orphan') {
    causes.push(notSupported('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  causes.push(...dryRunCauses(options.dryRun));
  return causes;
}

/**
 * Problems of ListOptions: `resourceVersionMatch` needs a `resourceVersion` and no `continue`,
 * `Exact` cannot read version "0", `sendInitialEvents` belongs to watches, where it needs
 * `resourceVersionMatch=NotOlderThan` (and `resourceVersionMatch` needs it). A watch-list without
 * `allowWatchBookmarks` is valid: it then gets no initial-events-end bookmark.
 */
export function listOptionsCauses(query: URLSearchParams, watch: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const match = query.get('resourceVersionMatch') ?? '';
  const resourceVersion = query.get('resourceVersion') ?? '';
  const hasContinue = (query.get('continue') ?? '') !== '';
  const sendInitialEvents = query.has('sendInitialEvents');
  if (watch) {
    if (sendInitialEvents && match !== 'NotOlderThan') {
      causes.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (match !== '') {
      if (!sendInitialEvents) {
        causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      }
      if (match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (hasContinue) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
    return causes;
  }
  if (match !== '') {
    if (resourceVersion === '') {
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    }
    if (hasContinue) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      causes.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    }
    if (match === 'Exact' && resourceVersion === '0') {
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (sendInitialEvents) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return causes;
}
