// kubectl's ages, as kube-apiserver's printers write them into Table cells: apimachinery's
// duration.HumanDuration (v0.36.3) of the time since a timestamp, "<unknown>" for none.

/**
 * apimachinery's HumanDuration: about two significant figures (`45s`, `3m20s`, `5h`, `3d4h`,
 * `2y30d`); `<invalid>` for a time more than a second in the future, `0s` just before now.
 */
export function humanDuration(ms: number): string {
  // Go converts to whole seconds toward zero; a clock a second behind still reads as now.
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${Math.trunc(hours / 24 / 365)}y` : `${Math.trunc(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/**
 * The printers' translateTimestampSince: the age of an RFC 3339 timestamp at `now`, `<unknown>`
 * when there is none (Go's zero time: absent, null or empty).
 */
export function timestampSince(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return '<unknown>';
  return humanDuration(now - at);
}
