const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines and hands each complete line to `onLine` as a string.
 *
 * Works on bytes, not strings: a UTF-8 character split across two chunks is decoded only once
 * its line is complete, and a line that fits in one chunk is decoded straight from that chunk
 * (no copy, no string concatenation). Only a line that spans chunks is joined, once, with
 * `Buffer.concat`, so a long object arriving in many small chunks costs O(length), not O(n²).
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly onLine: (line: string) => void) {}

  /** Feeds a chunk; calls `onLine` for each line it completes, in order. */
  push(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(NEWLINE, start);
    while (nl >= 0) {
      let line: string;
      if (this.pendingBytes > 0) {
        this.pending.push(chunk.subarray(start, nl));
        line = Buffer.concat(this.pending, this.pendingBytes + nl - start).toString('utf8');
        this.pending = [];
        this.pendingBytes = 0;
      } else {
        line = chunk.toString('utf8', start, nl);
      }
      if (line.length > 0 && line !== '\r') this.onLine(line);
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      this.pending.push(start === 0 ? chunk : chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
    }
  }

  /** Delivers a final line that had no trailing newline (the stream ended). */
  flush(): void {
    if (this.pendingBytes === 0) return;
    const line = Buffer.concat(this.pending, this.pendingBytes).toString('utf8');
    this.pending = [];
    this.pendingBytes = 0;
    if (line.trim().length > 0) this.onLine(line);
  }
}
