import { expect } from 'chai';
import { pino } from 'pino';
import { CacheSyncError, formatErrorForUser, resourceKind } from '../index.js';
import { createOperatorLogger } from '../internal.js';
import { errorLogFields } from './user-error.js';

describe('formatErrorForUser', () => {
  it('shows the message and each cause of the chain once, without stacks', () => {
    const root = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
    const middle = new TypeError('request failed', { cause: root });
    const top = new RangeError('operator cannot start', { cause: middle });
    expect(formatErrorForUser(top)).to.equal(
      'RangeError: operator cannot start\n  cause: TypeError: request failed\n  cause: connect ECONNREFUSED 127.0.0.1:6443',
    );
    expect(formatErrorForUser(top)).not.to.contain(' at ');
  });

  it('keeps a CacheSyncError to its message, its fix and the server error behind it', () => {
    const kind = resourceKind({ group: 'shop.example.com', version: 'v1', kind: 'Order', plural: 'orders', namespaced: true });
    const error = new CacheSyncError(
      {
        controller: 'orders',
        eventSource: 'primary',
        type: kind,
        namespace: undefined,
        verb: 'list',
        status: 404,
        reason: 'NotFound',
        serverMessage: 'the server could not find the requested resource',
        labelSelector: undefined,
        fieldSelector: undefined,
        phase: 'startup',
      },
      { cause: new Error('GET /apis/shop.example.com/v1/orders: 404 NotFound: the server could not find the requested resource') },
    );
    const lines = formatErrorForUser(error).split('\n');
    expect(lines).to.have.length(3);
    expect(lines[0]).to.match(/^CacheSyncError: controller "orders", event source "primary" cannot start: list orders\.shop\.example\.com/);
    expect(lines[1]).to.match(/^Fix: install the CustomResourceDefinition orders\.shop\.example\.com/);
    expect(lines[2]).to.equal(
      '  cause: GET /apis/shop.example.com/v1/orders: 404 NotFound: the server could not find the requested resource',
    );
  });

  it('says each thing once: a cause the message already quotes, a repeated cause and a cause loop are left out', () => {
    const quoted = new Error('lease ops/web: no answer within 10000 ms', { cause: new Error('no answer within 10000 ms') });
    expect(formatErrorForUser(quoted)).to.equal('lease ops/web: no answer within 10000 ms');
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(formatErrorForUser(b)).to.equal('b\n  cause: a');
    const twice = new Error('outer', { cause: new Error('inner', { cause: new Error('inner') }) });
    expect(formatErrorForUser(twice)).to.equal('outer\n  cause: inner');
  });

  it("lists an AggregateError's errors as causes, and shows values that are not errors", () => {
    const aggregate = new AggregateError([new Error('shard 1 lost'), new Error('shard 2 lost')], 'sharding failed');
    expect(formatErrorForUser(aggregate)).to.equal('AggregateError: sharding failed\n  cause: shard 1 lost\n  cause: shard 2 lost');
    expect(formatErrorForUser('SIGTERM')).to.equal('SIGTERM');
    expect(formatErrorForUser(new Error('aborted', { cause: 'SIGINT' }))).to.equal('aborted\n  cause: SIGINT');
    expect(formatErrorForUser(new Error(''))).to.equal('(no message)');
    // kube-apiserver answers an unknown path with the text "404 page not found\n".
    const notFound = new Error('GET /apis/x/v1/ys: 404: 404 page not found\n', { cause: new Error('404 page not found\n\n') });
    expect(formatErrorForUser(notFound)).to.equal('GET /apis/x/v1/ys: 404: 404 page not found');
  });
});

describe('errorLogFields', () => {
  it('gives the formatted error at info level and the whole error (stack included) only at debug', () => {
    const error = new Error('list failed', { cause: new Error('503 ServiceUnavailable') });
    expect(errorLogFields(createOperatorLogger('info'), error)).to.deep.equal({ error: 'list failed\n  cause: 503 ServiceUnavailable' });
    const lines: Record<string, unknown>[] = [];
    const debug = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    debug.warn(errorLogFields(debug, error), 'problem');
    expect(lines[0]!['error']).to.equal('list failed\n  cause: 503 ServiceUnavailable');
    expect((lines[0]!['err'] as { stack: string }).stack).to.match(/^Error: list failed\n\s+at /);
    expect(errorLogFields(createOperatorLogger(undefined), error)).not.to.have.property('err');
  });
});
