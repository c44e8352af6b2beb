// Every failure the embedded server reports is a metav1.Status, built here so that code, reason
// and message wording match kube-apiserver (clients such as client-go branch on `reason`).

/** One cause in `details.causes` of a 422 Invalid Status. */
export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

/** The `details` of a Status. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** A metav1.Status object as sent on the wire. */
export interface StatusObject {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** An error the embedded server turns into a Status response with its HTTP code. */
export class ApiStatusError extends Error {
  override readonly name = 'ApiStatusError';
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  /** The Status object for the response body. */
  toStatus(): StatusObject {
    const status: StatusObject = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    // Go's omitempty again: a Status built from a plain error (an InternalError without reason) has none.
    if (this.reason === '') delete status.reason;
    if (this.details !== undefined) {
      // Go's omitempty: empty name and group are left out, as kube-apiserver writes them.
      const details: StatusDetails = { ...this.details };
      if (details.name === '') delete details.name;
      if (details.group === '') delete details.group;
      if (details.kind === '') delete details.kind;
      status.details = details;
    }
    return status;
  }
}

/** `resource` or `resource.group`, as Kubernetes prints a GroupResource. */
export function qualifiedResource(resource: string, group: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

export function notFound(resource: string, group: string, name: string): ApiStatusError {
  return new ApiStatusError(404, 'NotFound', `${qualifiedResource(resource, group)} "${name}" not found`, {
    name,
    group,
    kind: resource,
  });
}

export function alreadyExists(resource: string, group: string, name: string): ApiStatusError {
  return new ApiStatusError(409, 'AlreadyExists', `${qualifiedResource(resource, group)} "${name}" already exists`, {
    name,
    group,
    kind: resource,
  });
}

export function conflict(resource: string, group: string, name: string, why: string): ApiStatusError {
  return new ApiStatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(resource, group)} "${name}": ${why}`, {
    name,
    group,
    kind: resource,
  });
}

export const MODIFIED_CONFLICT = 'the object has been modified; please apply your changes to the latest version and try again';

export function badRequest(message: string): ApiStatusError {
  return new ApiStatusError(400, 'BadRequest', message);
}

/** 422 Invalid: `Kind "name" is invalid: field: message` with one cause per problem. */
export function invalid(kind: string, group: string, name: string, causes: StatusCause[]): ApiStatusError {
  const text = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  const list = text.length === 1 ? text[0]! : `[${text.join(', ')}]`;
  return new ApiStatusError(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${list}`, {
    name,
    group,
    kind,
    causes,
  });
}

export function methodNotAllowed(): ApiStatusError {
  return new ApiStatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
}

export function expired(message: string): ApiStatusError {
  return new ApiStatusError(410, 'Expired', message);
}

export function pathNotFound(): ApiStatusError {
  return new ApiStatusError(404, 'NotFound', 'the server could not find the requested resource');
}
