/**
 * The RBAC of a whole operator, as `Operator.rbacManifest()` returns it: the rules of its own
 * cluster (controllers, fleet providers, Leases, the secure metrics endpoint's reviews), and one
 * manifest per remote cluster and per fleet's member clusters.
 *
 * @module
 */
import type { KubernetesObject } from '@kindex/core';
import type { Controller } from '../controller/controller.js';
import type { FleetController } from '../fleet/fleet-controller.js';
import { leasePermissions, type LeaseOwners } from '../rbac/lease-permissions.js';
import { secureServerPermissions } from '../rbac/metrics-permissions.js';
import { rbacManifest, type RbacManifest } from '../rbac/rbac-manifest.js';
import { RBAC_LISTING_OPTIONS, requiredPermissions, type RbacListingOptions } from './required-permissions.js';
import { fleetMemberManifests, remoteClusterManifests } from './remote-cluster-permissions.js';

/** What of an operator its RBAC is listed from. */
export interface OperatorRbacParts {
  readonly controllers: readonly Controller<KubernetesObject>[];
  readonly fleets: readonly FleetController<KubernetesObject>[];
  readonly leaseOwners: LeaseOwners;
  /** Whether the metrics endpoint reviews tokens and access (TokenReview, SubjectAccessReview). */
  readonly secureServer: boolean;
}

/** `Operator.rbacManifest()`: checks the options, then lists every rule the operator needs, by cluster. */
export async function operatorRbacManifest(parts: OperatorRbacParts, options: RbacListingOptions): Promise<RbacManifest> {
  RBAC_LISTING_OPTIONS.check(options, 'Operator.rbacManifest options');
  // rbacManifest takes only the manifest's own options (name, subject) and rejects the rest.
  const { secondaryVerbs: _verbs, extraPermissions: _extra, events: _events, leases, ...manifestOptions } = options;
  const permissions = [
    ...(await requiredPermissions(parts.controllers, options)),
    ...parts.fleets.flatMap((f) => f.requiredPermissions()),
    ...(leases === false ? [] : leasePermissions(parts.leaseOwners)),
    ...(parts.secureServer ? secureServerPermissions() : []),
  ];
  const clusters = await remoteClusterManifests(parts.controllers, options);
  const fleets = await fleetMemberManifests(parts.fleets, options);
  return { ...rbacManifest(permissions, manifestOptions), clusters, fleets };
}
