// The string formats kube-apiserver checks (k8s.io/kube-openapi/pkg/validation/strfmt) that
// operators use most; a format not listed here is not checked (kube-apiserver ignores unknown ones).
import { isIP } from 'node:net';

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const HOSTNAME = /^([a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*$/;

const FORMATS: Readonly<Record<string, (s: string) => boolean>> = {
  'date-time': (s) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)),
  datetime: (s) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  ipv4: (s) => isIP(s) === 4,
  ipv6: (s) => isIP(s) === 6,
  hostname: (s) => s.length <= 253 && HOSTNAME.test(s),
  email: (s) => /^[^@\s]+@[^@\s]+$/.test(s),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s),
  duration: (s) => /^-?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(s) || s === '0',
};

/** Whether `value` is a valid `format` string; true for a format not checked here. */
export function stringFormatValid(format: string, value: string): boolean {
  return FORMATS[format]?.(value) ?? true;
}
