// Module resolve hooks (node:module `register`): `@kindex/<pkg>` resolves to
// `packages/<pkg>/dist/index.js` and `@kindex/<pkg>/internal` to `packages/<pkg>/dist/internal.js`,
// the output of `tsc -b`. Both entries must map: the compiled packages import each other's
// internal entry, and one left to the `exports` field would load the TypeScript source beside the
// compiled one (a second copy of every class, and no loader for .ts under plain node).

const packagesDir = new URL('../../packages/', import.meta.url);
const compiled = new Map<string, string>(
  ['core', 'informer', 'testing'].flatMap((pkg): [string, string][] => [
    [`@kindex/${pkg}`, new URL(`${pkg}/dist/index.js`, packagesDir).href],
    [`@kindex/${pkg}/internal`, new URL(`${pkg}/dist/internal.js`, packagesDir).href],
  ]),
);

/** What a resolve hook returns. */
export interface ResolveResult {
  readonly url: string;
  readonly format?: string | null;
  readonly shortCircuit?: boolean;
}

/** Maps the workspace packages to their compiled entry points; everything else resolves as usual. */
export async function resolve(
  specifier: string,
  context: unknown,
  nextResolve: (specifier: string, context: unknown) => Promise<ResolveResult>,
): Promise<ResolveResult> {
  const url = compiled.get(specifier);
  if (url !== undefined) return { url, format: 'module', shortCircuit: true };
  return nextResolve(specifier, context);
}
