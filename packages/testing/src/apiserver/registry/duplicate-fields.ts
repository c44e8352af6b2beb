// Duplicate keys in a JSON request body. JSON.parse keeps the last value silently, while
// kube-apiserver's decoder (sigs.k8s.io/json) reports each repeated key: `duplicate field
// "spec.size"`, a 400 under fieldValidation=Strict and a warning under Warn. This scans the text
// the body was parsed from, only for the keys' paths; the body is already known to be valid JSON.

const QUOTE = 34; // "
const BACKSLASH = 92;

// The end (exclusive) of the string token starting at `start` (its opening quote).
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    i += c === BACKSLASH ? 2 : 1;
  }
}

interface Frame {
  readonly path: string;
  /** Keys seen so far, for an object; undefined for an array. */
  readonly keys: Set<string> | undefined;
  /** Index of the next element, for an array. */
  index: number;
  /** The key whose value comes next, for an object. */
  key: string | undefined;
}

function childPath(frame: Frame | undefined): string {
  if (frame === undefined) return '';
  if (frame.keys === undefined) return `${frame.path}[${frame.index}]`;
  return frame.path === '' ? (frame.key ?? '') : `${frame.path}.${frame.key ?? ''}`;
}

/** The paths of repeated keys in valid JSON text (`spec.size`, `items[0].name`), in document order. */
export function duplicateFields(text: string): string[] {
  const found: string[] = [];
  const stack: Frame[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    switch (c) {
      case '{':
      case '[': {
        const parent = stack[stack.length - 1];
        stack.push({ path: childPath(parent), keys: c === '{' ? new Set() : undefined, index: 0, key: undefined });
        expectKey = c === '{';
        break;
      }
      case '}':
      case ']':
        stack.pop();
        expectKey = false;
        break;
      case ',': {
        const top = stack[stack.length - 1];
        if (top?.keys === undefined) {
          if (top !== undefined) top.index++;
        } else expectKey = true;
        break;
      }
      case '"': {
        const end = stringEnd(text, i);
        const top = stack[stack.length - 1];
        if (expectKey && top?.keys !== undefined) {
          const raw = text.slice(i, end);
          const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
          top.key = key;
          if (top.keys.has(key)) found.push(childPath(top));
          else top.keys.add(key);
          expectKey = false;
        }
        i = end - 1;
        break;
      }
      default:
        break;
    }
  }
  return found;
}
