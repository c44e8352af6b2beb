/**
 * `Context` asked for secondary resources of a type that no registered event source serves.
 * Usually a source missing from `prepareEventSources`.
 */
export class NoEventSourceForTypeError extends Error {
  override readonly name = 'NoEventSourceForTypeError';
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
 */
export class MultipleEventSourcesForTypeError extends Error {
  override readonly name = 'MultipleEventSourcesForTypeError';
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

/** `Context.getSecondaryResource` (singular) found more than one resource for the primary. */
export class MultipleSecondaryResourcesError extends Error {
  override readonly name = 'MultipleSecondaryResourcesError';
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
 */
export class EventSourceClassMismatchError extends Error {
  override readonly name = 'EventSourceClassMismatchError';
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
