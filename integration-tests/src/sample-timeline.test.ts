// The sample's timeline (what `pnpm sample` prints) reads as sentences: a deleted primary is
// "primary: sample/build deleted → Job build forgotten", not "primary: primary-deleted"
// No server needed.
import { expect } from 'chai';
import { ResourceID } from '@kindex/core';
import { Timeline } from '@kindex/sample-job-cluster/src/timeline.js';

describe('the sample Timeline', () => {
  const render = (record: (timeline: Timeline) => void): string[] => {
    const lines: string[] = [];
    record(new Timeline((l) => lines.push(l.replace(/^\[\+\s*\d+ ms\] /, ''))));
    return lines.map((l) => l.replace(/\s+/g, ' '));
  };

  it('says a deleted primary is deleted and forgotten, naming it', () => {
    const lines = render((t) =>
      t.record('Job', {
        type: 'trigger',
        trigger: { primaryIds: [ResourceID.of('build', 'sample')], source: 'primary', cause: { type: 'primary-deleted' } },
      }),
    );
    expect(lines).to.deep.equal([' event primary: sample/build deleted → Job build forgotten']);
  });

  it('keeps resource events as "source: object verbed → controller primaries"', () => {
    const lines = render((t) => {
      t.record('Job', {
        type: 'trigger',
        trigger: {
          primaryIds: [ResourceID.of('build', 'sample'), ResourceID.of('test', 'sample')],
          source: 'clusters',
          cause: { type: 'resource', event: 'update', objectKey: 'sample/alpha' },
        },
      });
      t.record('Job', {
        type: 'trigger',
        trigger: { primaryIds: [ResourceID.of('build', 'sample')], source: 'ticks', cause: { type: 'timer' } },
      });
    });
    expect(lines).to.deep.equal([' event clusters: sample/alpha updated → Job build, test', ' event ticks: timer due → Job build']);
  });
});
