// metav1.MicroTime as kube-apiserver decodes it (Lease spec.acquireTime/renewTime, Event
// eventTime): Go's time.Parse with layout RFC3339Micro, "2006-01-02T15:04:05.000000Z07:00", which
// wants exactly six fractional digits. JavaScript's toISOString() has three and is refused. The
// errors repeat Go's wording, which users see in the 400 of the write.

const LAYOUT = '2006-01-02T15:04:05.000000Z07:00';

/** A parsed MicroTime: the value as stored (UTC, six digits), or Go's parse error. */
export type MicroTimeResult = { readonly value: string } | { readonly error: string };

// The layout as Go's parser walks it: literal prefixes and the std chunks after them.
type Chunk =
  | { readonly literal: string }
  | {
      readonly std: '2006' | '01' | '02' | '15' | '04' | '05' | '.000000' | 'Z07:00';
      readonly field?: 'month' | 'day' | 'hour' | 'minute' | 'second';
    };

const CHUNKS: readonly Chunk[] = [
  { std: '2006' },
  { literal: '-' },
  { std: '01', field: 'month' },
  { literal: '-' },
  { std: '02', field: 'day' },
  { literal: 'T' },
  { std: '15', field: 'hour' },
  { literal: ':' },
  { std: '04', field: 'minute' },
  { literal: ':' },
  { std: '05', field: 'second' },
  { std: '.000000' },
  { std: 'Z07:00' },
];

const LIMITS = { month: [1, 12], day: [1, 31], hour: [0, 23], minute: [0, 59], second: [0, 59] } as const;

const isDigit = (s: string, i: number): boolean => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** Parses a MicroTime string as kube-apiserver does. */
export function parseMicroTime(text: string): MicroTimeResult {
  const cannot = (rest: string, as: string): MicroTimeResult => ({
    error: `parsing time ${JSON.stringify(text)} as ${JSON.stringify(LAYOUT)}: cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(as)}`,
  });
  const outOfRange = (what: string): MicroTimeResult => ({ error: `parsing time ${JSON.stringify(text)}: ${what} out of range` });
  let rest = text;
  const parts: Record<string, number> = {};
  let fraction = '';
  let offsetMinutes = 0;
  let rangeError: string | undefined;
  for (const chunk of CHUNKS) {
    if ('literal' in chunk) {
      if (!rest.startsWith(chunk.literal)) return cannot(rest, chunk.literal);
      rest = rest.slice(chunk.literal.length);
      continue;
    }
    switch (chunk.std) {
      case '2006':
        if (rest.length < 4 || ![0, 1, 2, 3].every((i) => isDigit(rest, i))) return cannot(rest, chunk.std);
        parts['year'] = Number(rest.slice(0, 4));
        rest = rest.slice(4);
        break;
      case '.000000':
        // Go takes the separator and exactly six digits, whatever follows.
        if (rest.length < 7 || (rest[0] !== '.' && rest[0] !== ',') || ![1, 2, 3, 4, 5, 6].every((i) => isDigit(rest, i))) {
          return cannot(rest, chunk.std);
        }
        fraction = rest.slice(1, 7);
        rest = rest.slice(7);
        break;
      case 'Z07:00':
        if (rest.startsWith('Z')) {
          rest = rest.slice(1);
          break;
        }
        if (rest.length < 6 || rest[3] !== ':' || (rest[0] !== '+' && rest[0] !== '-') || ![1, 2, 4, 5].every((i) => isDigit(rest, i))) {
          return cannot(rest, chunk.std);
        }
        offsetMinutes = (rest[0] === '-' ? -1 : 1) * (Number(rest.slice(1, 3)) * 60 + Number(rest.slice(4, 6)));
        rest = rest.slice(6);
        break;
      default: {
        // Two digits; the hour ("15") may have one.
        if (!isDigit(rest, 0)) return cannot(rest, chunk.std);
        const width = isDigit(rest, 1) ? 2 : chunk.std === '15' ? 1 : 0;
        if (width === 0) return cannot(rest, chunk.std);
        const n = Number(rest.slice(0, width));
        const [low, high] = LIMITS[chunk.field!];
        if ((n < low || n > high) && rangeError === undefined) rangeError = chunk.field;
        parts[chunk.field!] = n;
        rest = rest.slice(width);
      }
    }
  }
  if (rest !== '') return { error: `parsing time ${JSON.stringify(text)}: extra text: ${JSON.stringify(rest)}` };
  if (rangeError !== undefined) return outOfRange(rangeError);
  const { year, month, day, hour, minute, second } = parts as Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number>;
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return outOfRange('day');
  const utc = new Date(Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * 60_000);
  return { value: `${utc.toISOString().slice(0, 19)}.${fraction}Z` };
}
