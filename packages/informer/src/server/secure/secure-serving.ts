/**
 * Secure serving of the operator's server, as controller-runtime's metrics server serves it since
 * kubebuilder v4 (`metricsserver.Options{SecureServing: true, FilterProvider:
 * filters.WithAuthenticationAndAuthorization}`), in place of a kube-rbac-proxy sidecar:
 *
 * - HTTPS, with a certificate and key read from files (a mounted cert-manager Secret) and read
 *   again when they change on disk, so the next connection gets the new pair; or a self-signed
 *   pair generated at start when no files are given (logged: scrapers must then skip verification).
 * - Every request authenticated with a TokenReview (`authentication.k8s.io/v1`) of its bearer
 *   token, then authorized with a SubjectAccessReview (`authorization.k8s.io/v1`) for `get` on the
 *   non-resource URL of its path (`/metrics`, `/debug/controllers`), both sent through the
 *   operator's KubeClient. 401 without a token or with one the review rejects, 403 without the
 *   permission.
 * - Review results cached, as k8s.io/apiserver's delegating authenticator and authorizer cache
 *   them: see {@link DEFAULT_REVIEW_CACHE_TTL_MS}.
 *
 * Health probes stay reachable by the kubelet, which sends no token: with `secure`, `/healthz` and
 * `/readyz` are served on `healthProbePort` over plain HTTP (controller-runtime's
 * HealthProbeBindAddress `:8081`, beside metrics on `:8443`).
 *
 * @module
 */
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';

/**
 * How long review results are kept, in milliseconds.
 *
 * @example
 * ```ts
 * import type { ReviewCacheTtl } from '@kindex/informer';
 *
 * // Revoked permissions take effect within 10 s, at the price of more SubjectAccessReviews.
 * const ttl: ReviewCacheTtl = { allowedMs: 10_000 };
 * ```
 */
export interface ReviewCacheTtl {
  /** A token the TokenReview accepted. Defaults to 60 000 (controller-runtime's 1 minute). */
  readonly authenticatedMs?: number;
  /** A token the TokenReview rejected: a forged token sent in a loop costs one review per period. Defaults to 10 000. */
  readonly rejectedMs?: number;
  /** An allowing SubjectAccessReview. Defaults to 300 000 (5 minutes, as controller-runtime and kube-rbac-proxy). */
  readonly allowedMs?: number;
  /** A denying SubjectAccessReview: a new binding takes effect within it. Defaults to 30 000 (30 s, as controller-runtime). */
  readonly deniedMs?: number;
}

/**
 * The `secure` option of the operator's server: where its certificate comes from and how long
 * review results are cached.
 *
 * @example
 * ```ts
 * import { Operator, type SecureServingOptions } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * // cert-manager's Secret mounted at /tmp/k8s-metrics-server/serving-certs.
 * const secure: SecureServingOptions = {
 *   certFile: '/tmp/k8s-metrics-server/serving-certs/tls.crt',
 *   keyFile: '/tmp/k8s-metrics-server/serving-certs/tls.key',
 * };
 * const operator = new Operator({ kubeConfig, server: { port: 8443, secure, healthProbePort: 8081 } });
 * ```
 */
export interface SecureServingOptions {
  /**
   * PEM certificate (chain) to serve, e.g. `tls.crt` of a mounted `kubernetes.io/tls` Secret; read
   * again when it changes. Give it with `keyFile`, or neither for a generated self-signed pair.
   * Defaults to none.
   */
  readonly certFile?: string;
  /** PEM private key of `certFile` (`tls.key`). Defaults to none. */
  readonly keyFile?: string;
  /** How long TokenReview and SubjectAccessReview results are cached. Defaults to {@link DEFAULT_REVIEW_CACHE_TTL_MS}. */
  readonly reviewCacheTtl?: ReviewCacheTtl;
}

const MILLISECONDS = Type.Optional(Type.Number({ minimum: 0, description: 'a number of milliseconds, 0 or more' }));

/** {@link SecureServingOptions}' keys and value checks, `reviewCacheTtl`'s own included. */
export const SECURE_SERVING_OPTIONS = defineOptions<SecureServingOptions>('server.secure', {
  certFile: Type.Optional(Type.String({ description: 'the path of a PEM certificate (tls.crt)' })),
  keyFile: Type.Optional(Type.String({ description: 'the path of its PEM private key (tls.key)' })),
  reviewCacheTtl: Type.Optional(
    Type.Object({ authenticatedMs: MILLISECONDS, rejectedMs: MILLISECONDS, allowedMs: MILLISECONDS, deniedMs: MILLISECONDS }),
  ),
});

/**
 * How long review results are cached unless `reviewCacheTtl` says otherwise: controller-runtime's
 * `filters.WithAuthenticationAndAuthorization` values (authentication 1 minute, allowed 5
 * minutes, denied 30 s), plus 10 s for a rejected token. kube-rbac-proxy keeps authentication 2
 * minutes; the shorter minute makes a deleted ServiceAccount's token stop working sooner, for one
 * TokenReview a minute per scraper.
 *
 * @example
 * ```ts
 * import { DEFAULT_REVIEW_CACHE_TTL_MS } from '@kindex/informer';
 *
 * console.log(`a new ClusterRoleBinding lets a scraper in within ${DEFAULT_REVIEW_CACHE_TTL_MS.deniedMs / 1000} s`);
 * ```
 */
export const DEFAULT_REVIEW_CACHE_TTL_MS = {
  authenticatedMs: 60_000,
  rejectedMs: 10_000,
  allowedMs: 300_000,
  deniedMs: 30_000,
} as const satisfies Required<ReviewCacheTtl>;
