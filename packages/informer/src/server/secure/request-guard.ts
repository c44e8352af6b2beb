import { createHash } from 'node:crypto';
import type { KubernetesObject, Logger } from '@kindex/core';
import type { KubeClient } from '../../client/kube-client.js';
import { resourceKind } from '../../kind/resource-kind.js';
import { ReviewCache } from './review-cache.js';
import { DEFAULT_REVIEW_CACHE_TTL_MS, type ReviewCacheTtl } from './secure-serving.js';

/**
 * What the secure server sends its TokenReviews and SubjectAccessReviews with: a KubeClient (the
 * Operator gives one on its KubeConfig, without the leader fence).
 *
 * @example
 * ```ts
 * import { HealthChecks, KubeClient, OperatorMetrics, OperatorServer, type AccessReviewClient } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const client: AccessReviewClient = new KubeClient(kubeConfig);
 * const server = new OperatorServer(
 *   { port: 8443, secure: true, healthProbePort: 8081 },
 *   { metrics: new OperatorMetrics(), health: new HealthChecks(), controllers: () => [], client },
 * );
 * ```
 */
export type AccessReviewClient = Pick<KubeClient, 'create'>;

/** A user as a TokenReview returns it (`status.user`). */
export interface ReviewedUser {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

interface TokenReview extends KubernetesObject {
  spec: { token: string };
  status?: { authenticated?: boolean; user?: ReviewedUser; error?: string };
}

interface SubjectAccessReview extends KubernetesObject {
  spec: {
    user: string;
    uid?: string;
    groups?: readonly string[];
    extra?: Readonly<Record<string, readonly string[]>>;
    nonResourceAttributes: { path: string; verb: string };
  };
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

const TOKEN_REVIEWS = resourceKind<TokenReview>({
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'TokenReview',
  plural: 'tokenreviews',
  namespaced: false,
});
const SUBJECT_ACCESS_REVIEWS = resourceKind<SubjectAccessReview>({
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  namespaced: false,
});

/** The guard's answer: let the request through as `user`, or refuse it with `status` and a one-line `message`. */
export type GuardVerdict =
  | { readonly allowed: true; readonly user: ReviewedUser }
  | { readonly allowed: false; readonly status: 401 | 403 | 500; readonly message: string };

type Authentication = { readonly user: ReviewedUser } | { readonly user: undefined };

/** Distinct tokens and (user, path) pairs remembered; beyond, the oldest are forgotten. */
const MAX_CACHED_REVIEWS = 4096;

/**
 * Authenticates a request's bearer token with a TokenReview and authorizes `get` on its path with
 * a SubjectAccessReview, caching both (controller-runtime's `filters.WithAuthenticationAndAuthorization`).
 * The token is kept only as a SHA-256 digest, and never logged.
 */
export class RequestGuard {
  readonly #client: AccessReviewClient;
  readonly #logger: Logger | undefined;
  readonly #ttl: Required<ReviewCacheTtl>;
  readonly #tokens = new ReviewCache<Authentication>(MAX_CACHED_REVIEWS);
  readonly #decisions = new ReviewCache<boolean>(MAX_CACHED_REVIEWS);

  constructor(client: AccessReviewClient, ttl: ReviewCacheTtl | undefined, logger: Logger | undefined) {
    this.#client = client;
    this.#logger = logger;
    this.#ttl = { ...DEFAULT_REVIEW_CACHE_TTL_MS, ...ttl };
  }

  /** The verdict on a request with this `Authorization` header for `path` (a non-resource URL), verb `get`. */
  async check(authorization: string | undefined, path: string): Promise<GuardVerdict> {
    const token = bearerToken(authorization);
    if (token === undefined) {
      return { allowed: false, status: 401, message: 'Unauthorized: send a bearer token (Authorization: Bearer <ServiceAccount token>)' };
    }
    let authentication: Authentication;
    try {
      authentication = await this.#authenticate(token);
    } catch (error) {
      this.#logger?.error({ err: error, path }, 'TokenReview failed; answering 500 (may the operator create tokenreviews?)');
      return { allowed: false, status: 500, message: 'Authentication failed: the operator could not review the token; see its log' };
    }
    const user = authentication.user;
    if (user === undefined) return { allowed: false, status: 401, message: 'Unauthorized: the token was not accepted by the API server' };
    let allowed: boolean;
    try {
      allowed = await this.#authorize(user, path);
    } catch (error) {
      this.#logger?.error(
        { err: error, user: user.username, path },
        'SubjectAccessReview failed; answering 500 (may the operator create subjectaccessreviews?)',
      );
      return { allowed: false, status: 500, message: `Authorization for user ${user.username} failed; see the operator's log` };
    }
    if (!allowed) {
      this.#logger?.debug({ user: user.username, path }, 'request denied: no get on the path');
      return {
        allowed: false,
        status: 403,
        message: `Forbidden: user ${user.username} may not get ${path} (grant it with a ClusterRole rule { nonResourceURLs: ['${path}'], verbs: ['get'] })`,
      };
    }
    return { allowed: true, user };
  }

  #authenticate(token: string): Authentication | Promise<Authentication> {
    const key = createHash('sha256').update(token).digest('base64');
    return this.#tokens.get(
      key,
      async () => {
        const review = await this.#client.create(TOKEN_REVIEWS, {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          metadata: {},
          spec: { token },
        });
        const status = review.status ?? {};
        if (status.authenticated === true && status.user?.username) return { user: status.user };
        this.#logger?.debug({ reason: status.error ?? '' }, 'bearer token rejected by the TokenReview');
        return { user: undefined };
      },
      (a) => (a.user === undefined ? this.#ttl.rejectedMs : this.#ttl.authenticatedMs),
    );
  }

  #authorize(user: ReviewedUser, path: string): boolean | Promise<boolean> {
    const spec: SubjectAccessReview['spec'] = {
      user: user.username,
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.groups ? { groups: user.groups } : {}),
      ...(user.extra ? { extra: user.extra } : {}),
      nonResourceAttributes: { path, verb: 'get' },
    };
    return this.#decisions.get(
      JSON.stringify(spec),
      async () => {
        const review = await this.#client.create(SUBJECT_ACCESS_REVIEWS, {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          metadata: {},
          spec,
        });
        return review.status?.allowed === true && review.status.denied !== true;
      },
      (allowed) => (allowed ? this.#ttl.allowedMs : this.#ttl.deniedMs),
    );
  }
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive, as k8s.io/apiserver's bearertoken), or undefined. */
function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const space = authorization.indexOf(' ');
  if (space < 0 || authorization.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  const token = authorization.slice(space + 1).trim();
  return token === '' || token.includes(' ') ? undefined : token;
}
