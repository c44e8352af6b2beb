/**
 * A mistake on the command line (a missing argument, a value of the wrong form): `kindex` prints
 * it as one line and exits 2, as commander's own usage errors. Other errors exit 1.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
