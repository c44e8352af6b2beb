// Registers the resolve hooks that run the workspace packages' compiled JavaScript: their
// `exports` point at `src/*.ts` (for tsx and tests), but tsx's per-closure cost would swamp what the
// benchmarks measure. Use with `node --import ./dist/register-dist.js`.
import { register } from 'node:module';

register('./dist-resolve-hooks.js', import.meta.url);
