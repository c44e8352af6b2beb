/** The restart scenario's contenders: kindex with each queue (the controller's `queue` option). */
export const RESTART_CONTENDERS: Readonly<Record<string, 'fifo' | 'priority'>> = { 'kindex-fifo': 'fifo', 'kindex-priority': 'priority' };
