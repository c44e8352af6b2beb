import { expect } from 'chai';
import { ApiException } from '@kubernetes/client-node';
import { catchApiStatus, NotAnApiStatusError } from '../index.js';
import { apiStatusOf } from '../internal.js';

const notFound = {
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  code: 404,
  reason: 'NotFound',
  message: 'configmaps "x" not found',
  details: { name: 'x', kind: 'configmaps' },
};

describe('apiStatusOf', () => {
  it('parses the Status from the JSON body of an ApiException', () => {
    const error = new ApiException(404, 'Unknown API Status Code!', JSON.stringify(notFound), {});
    expect(apiStatusOf(error)).to.deep.equal(notFound);
  });

  it('falls back to the code alone when the body is not a Status', () => {
    expect(apiStatusOf(new ApiException(401, 'Unauthorized', undefined, {}))).to.deep.equal({ code: 401 });
  });

  it('reads statusCode from a failed client-node Watch', () => {
    expect(apiStatusOf(Object.assign(new Error('Gone'), { statusCode: 410 }))).to.deep.equal({ code: 410 });
  });

  it('returns undefined for an error without a status', () => {
    expect(apiStatusOf(new Error('socket hang up'))).to.equal(undefined);
  });
});

describe('catchApiStatus', () => {
  it('resolves with the Status of a rejected request', async () => {
    const status = await catchApiStatus(Promise.reject(new ApiException(404, 'x', JSON.stringify(notFound), {})));
    expect(status).to.include({ code: 404, reason: 'NotFound' });
  });

  it('rejects with NotAnApiStatusError when the request succeeds', async () => {
    const error = await catchApiStatus(Promise.resolve({ ok: true })).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(NotAnApiStatusError);
    expect((error as Error).message).to.contain('"ok":true');
  });

  it('rejects with NotAnApiStatusError when the failure carries no Status', async () => {
    const error = await catchApiStatus(Promise.reject(new Error('ECONNREFUSED'))).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(NotAnApiStatusError);
  });
});
