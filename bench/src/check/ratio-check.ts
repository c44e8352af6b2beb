// The CI gate of `pnpm bench -- --check`: ratios of kindex against baselines measured in the same
// run (the machine is noisy, so never absolute times), compared with committed bounds that leave
// generous room for noise. A failure names the figure, what was measured and what is allowed.
import { readFileSync } from 'node:fs';

/** One bound per figure: `min` for higher-is-better ratios, `max` for lower-is-better ones. */
export interface RatioBound {
  readonly min?: number;
  readonly max?: number;
  /** What the figure is, for the failure message. */
  readonly what: string;
}

export type RatioBounds = Readonly<Record<string, RatioBound>>;

export function readBounds(path: string): RatioBounds {
  return JSON.parse(readFileSync(path, 'utf8')) as RatioBounds;
}

/** The failures, as sentences; empty when every bounded figure was measured and is in bounds. */
export function checkRatios(measured: ReadonlyMap<string, number>, bounds: RatioBounds, boundsPath: string): string[] {
  const failures: string[] = [];
  for (const [figure, bound] of Object.entries(bounds)) {
    const value = measured.get(figure);
    if (value === undefined || !Number.isFinite(value)) {
      failures.push(`${figure} (${bound.what}) was not measured: run the scenarios it needs`);
    } else if (bound.min !== undefined && value < bound.min) {
      failures.push(
        `${figure} (${bound.what}) is ${value.toFixed(2)}x, below the allowed ${bound.min}x: a regression, or update ${boundsPath} with the reason`,
      );
    } else if (bound.max !== undefined && value > bound.max) {
      failures.push(
        `${figure} (${bound.what}) is ${value.toFixed(2)}x, above the allowed ${bound.max}x: a regression, or update ${boundsPath} with the reason`,
      );
    }
  }
  return failures;
}
