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
        const cause = trigger.cause;
        const verb = cause.type === 'resource' ? (cause.event === 'generic' ? 'touched' : `${cause.event}d`) : cause.type;
        const what = cause.type === 'resource' ? `${trigger.source}: ${cause.objectKey} ${verb}` : `${trigger.source}: ${verb}`;
        const primaries = trigger.primaryIds.map((id) => id.name).join(', ') || '(none)';
        this.#emit(`  event      ${what.padEnd(40)} → ${controller} ${primaries}`);
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
