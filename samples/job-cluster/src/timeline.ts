import type { Trigger } from '@kindex/core';
import type { ControllerEvent } from '@kindex/informer';

/** Renders controller events as one readable line each: event, mapped primaries, reconcile, result. */
export class Timeline {
  readonly #start = Date.now();
  readonly lines: string[] = [];

  constructor(private readonly print: (line: string) => void = (l) => console.log(l)) {}

  note(text: string): void {
    this.#emit(`── ${text}`);
  }

  record(controller: string, event: ControllerEvent): void {
    switch (event.type) {
      case 'trigger': {
        const { trigger } = event;
        const primaries = trigger.primaryIds.map((id) => id.name).join(', ') || '(none)';
        // A deleted primary is forgotten, not reconciled: say so instead of pointing at a reconcile.
        const target = trigger.cause.type === 'primary-deleted' ? `${controller} ${primaries} forgotten` : `${controller} ${primaries}`;
        this.#emit(`  event      ${describeTrigger(trigger).padEnd(40)} → ${target}`);
        return;
      }
      case 'reconciled':
        this.#emit(
          `  reconcile  ${controller} ${event.key.padEnd(28)} → ${event.control}${event.wrote.length ? ` (wrote ${event.wrote.join(', ')})` : ''}`,
        );
        return;
      case 'processing':
        if (event.event.type === 'retry-scheduled')
          this.#emit(`  retry      ${controller} ${event.event.key} in ${event.event.delayMs} ms: ${String(event.event.error)}`);
        return;
      case 'problem':
        this.#emit(`  problem    ${event.source}: ${String(event.error)}`);
        return;
    }
  }

  #emit(line: string): void {
    const stamped = `[+${String(Date.now() - this.#start).padStart(5)} ms] ${line}`;
    this.lines.push(stamped);
    this.print(stamped);
  }
}

/** What happened, in words: `clusters: sample/alpha updated`, `primary: sample/build deleted`. */
function describeTrigger(trigger: Trigger): string {
  const cause = trigger.cause;
  switch (cause.type) {
    case 'resource':
      return `${trigger.source}: ${cause.objectKey} ${cause.event === 'generic' ? 'touched' : `${cause.event}d`}`;
    case 'primary-deleted':
      // The primaries' own keys: the cause carries none, the trigger names them.
      return `${trigger.source}: ${trigger.primaryIds.map((id) => id.key).join(', ')} deleted`;
    case 'timer':
      return `${trigger.source}: timer due`;
    case 'poll':
      return `${trigger.source}: polled data ${cause.change}`;
    case 'external':
      return `${trigger.source}: ${cause.detail}`;
  }
}
