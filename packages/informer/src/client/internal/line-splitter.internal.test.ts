import { expect } from 'chai';
import fc from 'fast-check';
import { LineSplitter } from './line-splitter.js';

function split(chunks: Buffer[]): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter({ line: (l) => lines.push(l) });
  for (const c of chunks) splitter.push(c);
  splitter.flush();
  return lines;
}

describe('LineSplitter', () => {
  it('delivers several lines from one chunk, in order', () => {
    expect(split([Buffer.from('{"a":1}\n{"b":2}\n{"c":3}\n')])).to.deep.equal(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('calls onChunk once per chunk, before the lines of that chunk (the watchdog sees every chunk, even one without a line)', () => {
    const calls: string[] = [];
    const splitter = new LineSplitter({ line: (l) => calls.push(l) }, () => calls.push('chunk'));
    for (const c of ['{"a":', '1}\n{"b":2}\n', '']) splitter.push(Buffer.from(c));
    expect(calls).to.deep.equal(['chunk', 'chunk', '{"a":1}', '{"b":2}', 'chunk']);
  });

  it('joins a line split across chunks', () => {
    expect(split([Buffer.from('{"a":'), Buffer.from('1'), Buffer.from('}\n{"b"'), Buffer.from(':2}\n')])).to.deep.equal([
      '{"a":1}',
      '{"b":2}',
    ]);
  });

  it('decodes a multi-byte character split between chunks', () => {
    const bytes = Buffer.from('{"name":"café ☃"}\n');
    const cut = bytes.indexOf(0xe2) + 1; // inside the snowman's three bytes
    expect(split([bytes.subarray(0, cut), bytes.subarray(cut)])).to.deep.equal(['{"name":"café ☃"}']);
  });

  it('skips empty lines and delivers a last line without newline on flush', () => {
    expect(split([Buffer.from('\n\r\n{"a":1}\n\n{"b":2}')])).to.deep.equal(['{"a":1}', '{"b":2}']);
  });

  it('gives the same lines however the bytes are chunked', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, '')),
          { maxLength: 20 },
        ),
        fc.array(fc.nat(), { maxLength: 30 }),
        (lines, cuts) => {
          const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Buffer[] = [];
          let prev = 0;
          for (const p of points) {
            chunks.push(bytes.subarray(prev, p));
            prev = p;
          }
          chunks.push(bytes.subarray(prev));
          expect(split(chunks)).to.deep.equal(lines.filter((l) => l.length > 0));
        },
      ),
    );
  });
});
