/**
 * Objects of one cache share the strings they repeat, instead of each holding its own copy.
 *
 * `JSON.parse` makes a new string for every value longer than ten characters, so a cache of
 * 100,000 objects holds 100,000 copies of its `kind` and `apiVersion` when they are long
 * ("PartialObjectMetadata", "meta.k8s.io/v1", a custom resource's group), of creation timestamps
 * shared by objects made together, of a long namespace and of the owner that sibling objects point
 * at. The copies are dropped where an object enters the cache, before it
 * is frozen, while they are still young garbage.
 *
 * Each field is compared with the value the previous object had there (a string compare, no
 * hashing): a list comes sorted by namespace and name, so objects made together (the pods of a
 * ReplicaSet, one operator's ConfigMaps) sit side by side, and a watch delivers objects of one
 * kind. On the bench's ConfigMaps this takes 80 bytes off each cached object (5% of a full one,
 * 7% of a metadata-only one) for a cost lost in `JSON.parse`'s noise. Measured and not kept: a
 * process-wide table (it would also catch values far apart, and label values) cost 0.6-1.1 µs
 * per object, hashing each fresh string and missing the CPU cache in a large table, about a third
 * of `JSON.parse`'s own time; label values compared with the previous object's, 130 ns per object
 * for the one long value the bench's objects repeat.
 */
export class MetadataInterning {
  readonly #kind = new PreviousString();
  readonly #apiVersion = new PreviousString();
  readonly #namespace = new PreviousString();
  readonly #creationTimestamp = new PreviousString();
  // The previous first (controller) owner reference's: siblings listed side by side share it.
  readonly #ownerApiVersion = new PreviousString();
  readonly #ownerKind = new PreviousString();
  readonly #ownerName = new PreviousString();
  readonly #ownerUid = new PreviousString();

  /**
   * Replaces the repeated strings of an object fresh off the wire by the copies the previous
   * objects hold, in place: same values and property order, so the object's hidden class is
   * unchanged. An object already frozen (shared with someone) is left alone.
   */
  share(object: Fields): void {
    // Named property reads and writes (not a helper taking the field's name): keyed access on
    // three shapes of object measured twice as slow.
    if (Object.isFrozen(object)) return;
    const { kind, apiVersion } = object;
    if (typeof kind === 'string') object.kind = this.#kind.same(kind);
    if (typeof apiVersion === 'string') object.apiVersion = this.#apiVersion.same(apiVersion);
    const meta = object.metadata as Fields | undefined;
    if (typeof meta !== 'object' || meta === null || Object.isFrozen(meta)) return;
    const { namespace, creationTimestamp, ownerReferences } = meta;
    if (typeof namespace === 'string') meta.namespace = this.#namespace.same(namespace);
    if (typeof creationTimestamp === 'string') meta.creationTimestamp = this.#creationTimestamp.same(creationTimestamp);
    const owner = Array.isArray(ownerReferences) ? (ownerReferences[0] as Fields | null | undefined) : undefined;
    if (typeof owner !== 'object' || owner === null || Object.isFrozen(owner)) return;
    if (typeof owner.apiVersion === 'string') owner.apiVersion = this.#ownerApiVersion.same(owner.apiVersion);
    if (typeof owner.kind === 'string') owner.kind = this.#ownerKind.same(owner.kind);
    if (typeof owner.name === 'string') owner.name = this.#ownerName.same(owner.name);
    if (typeof owner.uid === 'string') owner.uid = this.#ownerUid.same(owner.uid);
  }
}

type Fields = Record<string, unknown>;

/** The string one field of the previous object held. */
class PreviousString {
  #value = '';

  /** The previous copy when `value` equals it (`value` is then garbage); else `value`, remembered. */
  same(value: string): string {
    if (value === this.#value) return this.#value;
    this.#value = value;
    return value;
  }
}
