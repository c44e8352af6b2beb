/**
 * The answers of `/debug/controllers`: every controller, a fleet's once per cluster it runs here
 * (with `cluster`), and what one controller knows about a primary. A fleet's name is shared by its
 * per-cluster controllers, so `?cluster=<name>` picks one; without it, the fleet's page lists its
 * clusters and their state.
 *
 * @module
 */
import { controllerDebugView, type ControllerDebugView } from './debug-controllers.js';
import type { DebuggableController, DebuggableFleet } from './debuggable-controller.js';

/** A debug answer: its HTTP status and JSON body. */
export interface DebugAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** What the debug routes read: the registered controllers and fleets, at the time of the request. */
export interface DebugTargets {
  readonly controllers: readonly DebuggableController[];
  readonly fleets: readonly DebuggableFleet[];
}

const PRIMARY_PATH = '/debug/controllers/<controller>/primaries/<namespace>/<name> (or /primaries/<name> for cluster-scoped kinds)';

/**
 * Answers `/debug/controllers` followed by `segments` (decoded path segments), with `cluster`
 * the `?cluster=` query value when given.
 */
export function debugAnswer(targets: DebugTargets, segments: readonly string[], cluster: string | undefined): DebugAnswer {
  const { controllers, fleets } = targets;
  if (segments.length === 0) {
    return {
      status: 200,
      body: {
        controllers: [...controllers.map((c) => controllerDebugView(c)), ...fleets.flatMap(memberViews)],
        ...(fleets.length > 0 ? { fleets: fleets.map(fleetView) } : {}),
      },
    };
  }
  const name = segments[0]!;
  const fleet = fleets.find((f) => f.name === name);
  const controller = fleet === undefined ? controllers.find((c) => c.name === name) : undefined;
  if (fleet === undefined && controller === undefined) {
    return {
      status: 404,
      body: { error: `no controller named ${JSON.stringify(name)}`, controllers: [...controllers, ...fleets].map((c) => c.name) },
    };
  }
  if (controller !== undefined && cluster !== undefined) {
    return {
      status: 400,
      body: { error: `controller ${JSON.stringify(name)} is not a fleet: it runs in the operator's own cluster; drop ?cluster=` },
    };
  }
  const primaries = segments[1] === 'primaries' && (segments.length === 3 || segments.length === 4);
  if (segments.length > 1 && !primaries) return { status: 404, body: { error: `use ${PRIMARY_PATH}` } };
  let target = controller;
  if (fleet !== undefined) {
    if (cluster === undefined) {
      if (!primaries) return { status: 200, body: { ...fleetView(fleet), hint: clusterHint(fleet, segments) } };
      return {
        status: 400,
        body: {
          error: `controller ${JSON.stringify(name)} is a fleet: name the cluster, ${clusterHint(fleet, segments)}`,
          ...running(fleet),
        },
      };
    }
    target = fleet.controllerOf(cluster);
    if (target === undefined) {
      const status = fleet.clusters.find((c) => c.name === cluster);
      const why =
        status === undefined
          ? 'is not engaged on this replica'
          : `has no controller now (${status.state}${status.error ? `: ${status.error}` : ''})`;
      return {
        status: 404,
        body: { error: `cluster ${JSON.stringify(cluster)} of fleet ${JSON.stringify(name)} ${why}`, ...running(fleet) },
      };
    }
  }
  if (!primaries) return { status: 200, body: fleet !== undefined ? memberView(fleet, cluster!, target!) : controllerDebugView(target!) };
  return { status: 200, body: target!.describePrimary(segments.slice(2).join('/')) };
}

/** A fleet's clusters as its page and the listing's `fleets` show them. */
function fleetView(fleet: DebuggableFleet): { name: string; kind: string; clusters: DebuggableFleet['clusters'] } {
  return { name: fleet.name, kind: fleet.kind.name, clusters: fleet.clusters };
}

/** One view per cluster whose controller runs now. */
function memberViews(fleet: DebuggableFleet): ControllerDebugView[] {
  return fleet.clusters.flatMap(({ name }) => {
    const controller = fleet.controllerOf(name);
    return controller === undefined ? [] : [memberView(fleet, name, controller)];
  });
}

/** A cluster's controller, its cluster and state first: the entries of one fleet share their `name`. */
function memberView(fleet: DebuggableFleet, cluster: string, controller: DebuggableController): ControllerDebugView {
  const status = fleet.clusters.find((c) => c.name === cluster);
  const { name, ...view } = controllerDebugView(controller);
  return {
    name,
    cluster,
    ...(status !== undefined ? { clusterState: status.state } : {}),
    ...(status?.error !== undefined ? { clusterError: status.error } : {}),
    ...view,
  };
}

function running(fleet: DebuggableFleet): { clusters: string[] } {
  return { clusters: fleet.clusters.filter((c) => fleet.controllerOf(c.name) !== undefined).map((c) => c.name) };
}

/** How to address one cluster of the fleet at the path asked for. */
function clusterHint(fleet: DebuggableFleet, segments: readonly string[]): string {
  const path = `/debug/controllers/${segments.map(encodeURIComponent).join('/')}`;
  return `one cluster's controller: ${path}?cluster=<cluster> (${fleet.clusters.map((c) => c.name).join(', ') || 'no cluster engaged here'})`;
}
