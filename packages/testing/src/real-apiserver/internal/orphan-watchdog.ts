import { ProcessGroup } from './process-group.js';

// Polls once a second whether the Node process still exists; when it is gone (even SIGKILLed, when
// no exit handler can run), kills the process groups listed in the file and removes the directory.
const SCRIPT = `
parent="$1"; groups="$2"; dir="$3"
while kill -0 "$parent" 2>/dev/null; do sleep 1; done
for g in $(cat "$groups" 2>/dev/null); do kill -KILL "-$g" 2>/dev/null; done
rm -rf -- "$dir"
`;

/**
 * Starts a shell that outlives this Node process only to clean up after it: kills the process
 * groups whose ids are in `groupsFile` (one a line, rewritten as servers restart) and removes
 * `dir`. Stop it (its {@link ProcessGroup.stop}) once the servers are stopped normally.
 * `parentPid` (the process to outlive) defaults to this one.
 */
export async function startOrphanWatchdog(
  groupsFile: string,
  dir: string,
  logFile: string,
  parentPid: number = process.pid,
): Promise<ProcessGroup> {
  return ProcessGroup.spawn('/bin/sh', ['-c', SCRIPT, 'kindex-watchdog', String(parentPid), groupsFile, dir], {
    logFile,
    cwd: '/',
  });
}
