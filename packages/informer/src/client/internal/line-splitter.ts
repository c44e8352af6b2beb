import { StringDecoder } from 'node:string_decoder';

const NEWLINE = '\n';

/** Where a {@link LineSplitter} hands each complete line, by a direct call, in order. */
export interface LineSink {
  /** One line, without its newline; never empty. */
  line(text: string): void;
}

/**
 * Splits a byte stream into lines and hands each complete line to its {@link LineSink} as a string.
 *
 * Each chunk is decoded to text once, as a whole (a `StringDecoder` holds back a UTF-8 character
 * split across two chunks until its last byte arrives), and lines are cut from that text: a line
 * is a slice of the chunk's string, not a decode of its own (a decode per line cost twice the
 * time on a watch of many small events, measured with `node --cpu-prof` on the bench's watch). A
 * line spanning chunks is joined by string concatenation, which V8 keeps as a rope until
 * `JSON.parse` flattens it once, so a long object in many small chunks costs O(length).
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  /** @param onChunk called at the start of each `push`, before any line of that chunk (see `KubeCodec.watchDecoder`). */
  constructor(
    private readonly sink: LineSink,
    private readonly onChunk?: () => void,
  ) {}

  /** Feeds a chunk; calls the sink for each line it completes, in order. */
  push(chunk: Buffer): void {
    this.onChunk?.();
    const text = this.decoder.write(chunk);
    let start = 0;
    let nl = text.indexOf(NEWLINE);
    while (nl >= 0) {
      let line = text.slice(start, nl);
      if (this.pending.length > 0) {
        line = this.pending + line;
        this.pending = '';
      }
      if (line.length > 0 && line !== '\r') this.sink.line(line);
      start = nl + 1;
      nl = text.indexOf(NEWLINE, start);
    }
    if (start < text.length) this.pending += start === 0 ? text : text.slice(start);
  }

  /** Delivers a final line that had no trailing newline (the stream ended). */
  flush(): void {
    const line = this.pending + this.decoder.end();
    this.pending = '';
    if (line.trim().length > 0) this.sink.line(line);
  }
}
