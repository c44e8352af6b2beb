import { expect } from 'chai';
import { Type } from 'typebox';
import { BucketRateLimiter, InvalidOptionError, UnknownOptionError } from '../index.js';
import { defineOptions } from '../internal.js';

interface PoolOptions {
  readonly size?: number;
  readonly mode: 'fast' | 'safe';
  readonly retry?: { readonly attempts?: number };
}

const POOL_OPTIONS = defineOptions<PoolOptions>('Pool options', {
  size: Type.Optional(Type.Integer({ minimum: 1, description: 'a whole number of connections, 1 or more' })),
  mode: Type.Union([Type.Literal('fast'), Type.Literal('safe')], { description: '"fast" or "safe"' }),
  retry: Type.Optional(Type.Object({ attempts: Type.Optional(Type.Integer({ minimum: 0 })) })),
});

function caught(attempt: () => unknown): InvalidOptionError {
  try {
    attempt();
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidOptionError);
    return error as InvalidOptionError;
  }
  expect.fail('expected an InvalidOptionError');
}

describe('defineOptions', () => {
  it('accepts what the schema accepts, and undefined', () => {
    POOL_OPTIONS.check({ mode: 'fast' });
    POOL_OPTIONS.check({ mode: 'safe', size: 3, retry: { attempts: 0 } });
    POOL_OPTIONS.check(undefined);
  });

  it('derives the accepted keys, nested ones included, from the schema', () => {
    expect(POOL_OPTIONS.keys).to.deep.equal({ size: true, mode: true, retry: { attempts: true } });
    const error = caught(() => POOL_OPTIONS.check({ mode: 'fast', retry: { atempts: 1 } }));
    expect(error).to.be.instanceOf(UnknownOptionError);
    expect(error.code).to.equal('KINDEX_INVALID_OPTION');
    expect(error.message).to.contain('Pool options.retry.atempts (did you mean "attempts"?)');
  });

  it('names the object, the key, the value and the fix in one line with the code KINDEX_INVALID_OPTION', () => {
    const error = caught(() => POOL_OPTIONS.check({ mode: 'fast', size: 0 }));
    expect(error.code).to.equal('KINDEX_INVALID_OPTION');
    expect([error.options, error.key, error.value]).to.deep.equal(['Pool options', 'size', 0]);
    expect(error.message).to.equal(
      'Pool options.size = 0: must be >= 1. Fix: set size to a whole number of connections, 1 or more, or leave it out for the default',
    );
    expect(error.message).not.to.contain('\n');
  });

  it('names a required key without "leave it out", and nested keys by their dotted path', () => {
    expect(caught(() => POOL_OPTIONS.check({ mode: 'slow' })).message).to.equal(
      'Pool options.mode = "slow": not one of the values accepted. Fix: set mode to "fast" or "safe"',
    );
    const nested = caught(() => POOL_OPTIONS.check({ mode: 'fast', retry: { attempts: -1 } }));
    expect(nested.key).to.equal('retry.attempts');
    expect(nested.message).to.match(
      /^Pool options\.retry\.attempts = -1: must be >= 0\. Fix: set retry\.attempts to a value that must be >= 0, or leave it out for the default$/,
    );
  });

  it('names a missing required key as the key, not the object', () => {
    const error = caught(() => POOL_OPTIONS.check({ size: 2 }));
    expect([error.options, error.key, error.value]).to.deep.equal(['Pool options', 'mode', undefined]);
    expect(error.message).to.equal('Pool options.mode = undefined: missing, and required. Fix: set mode to "fast" or "safe"');
  });

  it('is what a converted constructor throws for a bad value', () => {
    const error = caught(() => new BucketRateLimiter({ qps: 0 }));
    expect(error.message).to.equal(
      'BucketRateLimiter options.qps = 0: must be > 0. Fix: set qps to a number of requeues per second above 0, or leave it out for the default',
    );
    expect(() => new BucketRateLimiter({ burst: 0.5 })).to.throw(InvalidOptionError, 'BucketRateLimiter options.burst = 0.5');
  });

  it('leaves the other keys of an open nested object (additionalProperties: true) to it, checking the listed ones', () => {
    interface SourceOptions {
      readonly resourceType: { readonly name: string };
    }
    const SOURCE_OPTIONS = defineOptions<SourceOptions>('Source options', {
      resourceType: Type.Object({ name: Type.String() }, { additionalProperties: true, description: 'a token with a name' }),
    });
    expect(SOURCE_OPTIONS.keys).to.deep.equal({ resourceType: true });
    SOURCE_OPTIONS.check({ resourceType: { name: 'ConfigMap', group: '', plural: 'configmaps' } });
    expect(caught(() => SOURCE_OPTIONS.check({ resourceType: { name: 5 } })).message).to.contain('Source options.resourceType.name');
    expect(() => SOURCE_OPTIONS.check({ resourceTyp: { name: 'x' } })).to.throw(UnknownOptionError, 'did you mean "resourceType"');
  });
});
