/**
 * `Context` asked for secondary resources of a type that no registered event source serves.
 * Usually a source missing from `prepareEventSources`.
 *
 * @example
 * ```ts
 * import { NoEventSourceForTypeError, secondaryType, type Context } from '@kindex/core';
 * declare const context: Context;
 *
 * try {
 *   context.getSecondaryResources(secondaryType('Bucket'));
 * } catch (error) {
 *   // The reconciler asked for a type no source of prepareEventSources provides.
 *   if (error instanceof NoEventSourceForTypeError) console.error(`add an event source for ${error.resourceType}`);
 * }
 * ```
 */
export class NoEventSourceForTypeError extends Error {
  override readonly name = 'NoEventSourceForTypeError';
  readonly code = 'KINDEX_NO_EVENT_SOURCE';
  readonly resourceType: string;
  /** The event source name asked for, if any. */
  readonly eventSourceName: string | undefined;

  constructor(resourceType: string, eventSourceName?: string) {
    super(
      eventSourceName === undefined
        ? `no event source serves resources of type ${resourceType}`
        : `no event source named ${eventSourceName} serves resources of type ${resourceType}`,
    );
    this.resourceType = resourceType;
    this.eventSourceName = eventSourceName;
  }
}

/**
 * `Context.getSecondaryResource` (singular) found several event sources of the type; name the
 * one meant with `eventSourceName`.
 *
 * @example
 * ```ts
 * import { MultipleEventSourcesForTypeError, secondaryType, type Context, type KubernetesObject } from '@kindex/core';
 * declare const context: Context;
 *
 * const ConfigMaps = secondaryType<KubernetesObject>('ConfigMap');
 * try {
 *   context.getSecondaryResources(ConfigMaps);
 * } catch (error) {
 *   if (!(error instanceof MultipleEventSourcesForTypeError)) throw error;
 *   // Two sources hold ConfigMaps: name the one to read.
 *   context.getSecondaryResources(ConfigMaps, { eventSourceName: error.eventSourceNames[0]! });
 * }
 * ```
 */
export class MultipleEventSourcesForTypeError extends Error {
  override readonly name = 'MultipleEventSourcesForTypeError';
  readonly code = 'KINDEX_MULTIPLE_EVENT_SOURCES';
  readonly resourceType: string;
  /** Names of every event source serving the type. */
  readonly eventSourceNames: readonly string[];

  constructor(resourceType: string, eventSourceNames: readonly string[]) {
    super(
      `${eventSourceNames.length} event sources serve resources of type ${resourceType} ` +
        `(${eventSourceNames.join(', ')}): pass eventSourceName to choose one`,
    );
    this.resourceType = resourceType;
    this.eventSourceNames = Object.freeze([...eventSourceNames]);
  }
}

/**
 * `Context.getSecondaryResource` (singular) found more than one resource for the primary.
 *
 * @example
 * ```ts
 * import { MultipleSecondaryResourcesError, secondaryType, type Context, type KubernetesObject } from '@kindex/core';
 * declare const context: Context;
 *
 * try {
 *   context.getSecondaryResource(secondaryType<KubernetesObject>('Service'));
 * } catch (error) {
 *   if (error instanceof MultipleSecondaryResourcesError) console.error(`${error.objectKey} has ${error.count} ${error.resourceType}s, expected one`);
 * }
 * ```
 */
export class MultipleSecondaryResourcesError extends Error {
  override readonly name = 'MultipleSecondaryResourcesError';
  readonly code = 'KINDEX_MULTIPLE_SECONDARY_RESOURCES';
  /** `namespace/name` of the primary. */
  readonly objectKey: string;
  readonly resourceType: string;
  /** How many resources matched. */
  readonly count: number;

  constructor(objectKey: string, resourceType: string, count: number) {
    super(`object ${objectKey}: ${count} secondary resources of type ${resourceType} where at most one was expected`);
    this.objectKey = objectKey;
    this.resourceType = resourceType;
    this.count = count;
  }
}

/**
 * `Context.getEventSource(handle)` found the source the handle names, but it is not of the
 * handle's class: the name belongs to another kind of source, or the handle was made for
 * another class.
 *
 * @example
 * ```ts
 * import { EventSourceClassMismatchError, PollingEventSource, type Context, type EventSourceHandle, type KubernetesObject } from '@kindex/core';
 * declare const context: Context<KubernetesObject>;
 * declare const Backups: EventSourceHandle<PollingEventSource<unknown, KubernetesObject>>;
 *
 * try {
 *   context.getEventSource(Backups).name;
 * } catch (e) {
 *   // A handle naming a source of another class: the message says which class was found.
 *   if (e instanceof EventSourceClassMismatchError) console.error(e.eventSourceName, e.expected, e.message);
 *   else throw e;
 * }
 * ```
 */
export class EventSourceClassMismatchError extends Error {
  override readonly name = 'EventSourceClassMismatchError';
  readonly code = 'KINDEX_EVENT_SOURCE_CLASS_MISMATCH';
  readonly resourceType: string;
  /** The name of the source found. */
  readonly eventSourceName: string;
  /** The class the handle expects. */
  readonly expected: string;

  constructor(resourceType: string, eventSourceName: string, expected: string, actual: string) {
    super(
      `event source ${eventSourceName} (type ${resourceType}) is a ${actual}, but the handle expects a ${expected}: ` +
        `make the handle with the class that built the source, or give it the name of a source of that class`,
    );
    this.resourceType = resourceType;
    this.eventSourceName = eventSourceName;
    this.expected = expected;
  }
}
