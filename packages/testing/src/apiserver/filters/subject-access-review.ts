// SubjectAccessReview's spec checks, as k8s.io/kubernetes/pkg/apis/authorization/validation's
// ValidateSubjectAccessReviewSpec makes them before the authorizer is asked: exactly one of
// resourceAttributes and nonResourceAttributes, and a user or a group. kube-apiserver names no
// kind in the 422 (the decoded review's kind is cleared): `.authorization.k8s.io "" is invalid`.
// access-control.ts answers the review itself (RBAC's decision and reason).
import type { Json } from '../storage/object-store.js';
import { invalid, type StatusCause } from '../storage/status-error.js';

/** Throws kube-apiserver's 422 when a SubjectAccessReview's spec cannot be reviewed. */
export function validateSubjectAccessReviewSpec(spec: Json): void {
  const causes: StatusCause[] = [];
  const cause = (field: string, value: string, message: string): void => {
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${value}: ${message}`, field });
  };
  const resource = spec.resourceAttributes as Json | undefined | null;
  const nonResource = spec.nonResourceAttributes as { path?: string; verb?: string } | undefined | null;
  // The value printed is the internal Go struct's, field names capitalised.
  const nonResourceValue = nonResource == null ? 'null' : JSON.stringify({ Path: nonResource.path ?? '', Verb: nonResource.verb ?? '' });
  if (resource != null && nonResource != null) {
    cause('spec.nonResourceAttributes', nonResourceValue, 'cannot be specified in combination with resourceAttributes');
  }
  if (resource == null && nonResource == null) {
    cause('spec.resourceAttributes', nonResourceValue, 'exactly one of nonResourceAttributes or resourceAttributes must be specified');
  }
  const user = typeof spec.user === 'string' ? spec.user : '';
  if (user === '' && !(Array.isArray(spec.groups) && spec.groups.length > 0)) {
    cause('spec.user', JSON.stringify(user), 'at least one of user or group must be specified');
  }
  if (causes.length > 0) throw invalid('', 'authorization.k8s.io', '', causes);
}
