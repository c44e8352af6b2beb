// Module resolve hooks (node:module `register`): `@kindex/<pkg>` resolves to
// `packages/<pkg>/dist/index.js`, the output of `tsc -b`.

const packagesDir = new URL('../../packages/', import.meta.url);
const compiled = new Map<string, string>([
  ['@kindex/core', new URL('core/dist/index.js', packagesDir).href],
  ['@kindex/informer', new URL('informer/dist/index.js', packagesDir).href],
  ['@kindex/testing', new URL('testing/dist/index.js', packagesDir).href],
]);

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
