import { expect } from 'chai';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { catchInvalidOption } from '@kindex/testing/internal';
import { resourceKind, WebhookServer, type MutatingWebhook, type ValidatingWebhook } from '../index.js';

const WebPages = resourceKind({ group: 'sample.kindex.dev', version: 'v1', kind: 'WebPage', plural: 'webpages', namespaced: true });

describe('webhook options, declared once', () => {
  const server = (): WebhookServer => new WebhookServer({ port: 0 }, { registry: new Registry(), logger: pino({ level: 'silent' }) });

  it('refuses a failurePolicy or reinvocationPolicy the API server would refuse, naming the webhook and the choices', async () => {
    const failure = await catchInvalidOption(() =>
      server().validating({ kind: WebPages, failurePolicy: 'Never', validate: () => ({ allowed: true }) } as unknown as ValidatingWebhook),
    );
    expect(failure.code).to.equal('KINDEX_INVALID_OPTION');
    expect(failure.message).to.equal(
      `validating webhook for WebPage.failurePolicy = "Never": not one of the values accepted. Fix: set failurePolicy to 'Fail' or 'Ignore', or leave it out for the default`,
    );
    const reinvocation = await catchInvalidOption(() =>
      server().mutating({ kind: WebPages, reinvocationPolicy: 'Always', mutate: () => ({ allowed: true }) } as unknown as MutatingWebhook),
    );
    expect(reinvocation.key).to.equal('reinvocationPolicy');
  });

  it('refuses a maxRequestBytes that is not a positive whole number', async () => {
    const error = await catchInvalidOption(
      () => new WebhookServer({ port: 0, maxRequestBytes: 0 }, { registry: new Registry(), logger: pino({ level: 'silent' }) }),
    );
    expect(error.message).to.equal(
      'webhook server options.maxRequestBytes = 0: must be > 0. Fix: set maxRequestBytes to a positive number of bytes, or leave it out for the default',
    );
  });
});
