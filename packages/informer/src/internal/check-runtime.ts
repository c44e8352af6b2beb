// Imported first by index.ts, so it runs before any module evaluates @kubernetes/client-node:
// client-node 2.x on Node < 22.19 crashes inside its own import, and this turns that into one
// UnsupportedRuntimeError that names both versions and the fix. Resolution starts here, so the
// client-node checked is the one this package would load.
import { assertSupportedRuntime } from '@kindex/core/internal';

assertSupportedRuntime(import.meta.url);
