import { expect } from 'chai';
import type { KubernetesObject } from '@kindex/core';
import { generateWebhookCertificates, Operator, resourceKind, WebhookConfigError, webhookManifest } from '../index.js';
import { offlineKubeConfig } from '../testing-fixtures/offline-kube-config.js';

const WebPages = resourceKind({ group: 'sample.kindex.dev', version: 'v1', kind: 'WebPage', plural: 'webpages', namespaced: true });
const Tenants = resourceKind({ group: 'sample.kindex.dev', version: 'v2', kind: 'Tenant', plural: 'tenants', namespaced: false });

describe('Operator.webhookManifest', () => {
  function operatorWithWebhooks(): Operator {
    const operator = new Operator({ kubeConfig: offlineKubeConfig(), webhooks: { port: 9443 } });
    operator
      .webhooks!.validating({ kind: WebPages, validate: () => ({ allowed: true }) })
      .validating({
        kind: Tenants,
        operations: ['DELETE'],
        failurePolicy: 'Ignore',
        timeoutSeconds: 3,
        validate: () => ({ allowed: true }),
      })
      .mutating({
        kind: WebPages,
        reinvocationPolicy: 'IfNeeded',
        mutate: (r) => ({ allowed: true, object: r.object as KubernetesObject }),
      })
      .conversion({
        group: 'sample.kindex.dev',
        plural: 'webpages',
        kind: 'WebPage',
        hub: 'v2',
        spokes: { v1: { toHub: (o) => o, fromHub: (o) => o } },
      });
    return operator;
  }

  it('derives one webhook per handler, with rules from its kind and operations and Kubernetes’ defaults', () => {
    const manifest = operatorWithWebhooks().webhookManifest({ service: { namespace: 'operators', name: 'web-operator' } });
    expect(manifest.validating).to.deep.equal({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'kindex-operator' },
      webhooks: [
        {
          name: 'validate.webpages.sample.kindex.dev',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          timeoutSeconds: 10,
          matchPolicy: 'Equivalent',
          clientConfig: {
            service: { namespace: 'operators', name: 'web-operator', port: 443, path: '/validate/validate.webpages.sample.kindex.dev' },
          },
          rules: [
            {
              apiGroups: ['sample.kindex.dev'],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['webpages'],
              scope: 'Namespaced',
            },
          ],
        },
        {
          name: 'validate.tenants.sample.kindex.dev',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Ignore',
          timeoutSeconds: 3,
          matchPolicy: 'Equivalent',
          clientConfig: {
            service: { namespace: 'operators', name: 'web-operator', port: 443, path: '/validate/validate.tenants.sample.kindex.dev' },
          },
          rules: [
            { apiGroups: ['sample.kindex.dev'], apiVersions: ['v2'], operations: ['DELETE'], resources: ['tenants'], scope: 'Cluster' },
          ],
        },
      ],
    });
    const mutating = manifest.mutating as { kind: string; webhooks: Record<string, unknown>[] };
    expect(mutating.kind).to.equal('MutatingWebhookConfiguration');
    expect(mutating.webhooks).to.have.length(1);
    expect(mutating.webhooks[0]).to.include({ name: 'mutate.webpages.sample.kindex.dev', reinvocationPolicy: 'IfNeeded' });
    expect(manifest.conversions).to.deep.equal([
      {
        crd: 'webpages.sample.kindex.dev',
        conversion: {
          strategy: 'Webhook',
          webhook: {
            clientConfig: { service: { namespace: 'operators', name: 'web-operator', port: 443, path: '/convert' } },
            conversionReviewVersions: ['v1'],
          },
        },
      },
    ]);
    expect(manifest.objects).to.have.length(2);
    expect(manifest.yaml)
      .to.include('kind: ValidatingWebhookConfiguration')
      .and.to.include('---\n')
      .and.to.include('kind: MutatingWebhookConfiguration');
  });

  it('points at a url with the CA base64-encoded as caBundle', async () => {
    const { caCert } = await generateWebhookCertificates();
    const manifest = operatorWithWebhooks().webhookManifest({ url: 'https://127.0.0.1:9443', caBundle: caCert, name: 'web' });
    const webhook = (manifest.validating as { metadata: { name: string }; webhooks: { clientConfig: unknown }[] }).webhooks[0]!;
    expect((manifest.validating as { metadata: { name: string } }).metadata.name).to.equal('web');
    expect(webhook.clientConfig).to.deep.equal({
      url: 'https://127.0.0.1:9443/validate/validate.webpages.sample.kindex.dev',
      caBundle: Buffer.from(caCert).toString('base64'),
    });
  });

  it('leaves out a configuration no handler needs', () => {
    const manifest = webhookManifest([], [], { url: 'https://127.0.0.1:9443' });
    expect(manifest).to.deep.include({ validating: undefined, mutating: undefined, conversions: [], objects: [], yaml: '' });
  });

  it('names the field and the fix for bad options, and for an operator without webhooks', () => {
    const operator = operatorWithWebhooks();
    const message = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        expect(e).to.be.instanceOf(WebhookConfigError);
        return (e as Error).message;
      }
      throw new Error('no error thrown');
    };
    expect(message(() => operator.webhookManifest({}))).to.equal(
      'webhookManifest: service: give either service (in the cluster) or url (outside it), one of them',
    );
    expect(message(() => operator.webhookManifest({ url: 'http://127.0.0.1:9443' }))).to.match(
      /url: give the server's base URL as https:\/\/host:port/,
    );
    expect(message(() => operator.webhookManifest({ url: 'https://127.0.0.1:9443', caBundle: 'LS0tLS1CRUdJTg==' }))).to.match(
      /caBundle: give the CA certificate as PEM text/,
    );
    expect(message(() => new Operator({ kubeConfig: offlineKubeConfig() }).webhookManifest({ url: 'https://127.0.0.1:9443' }))).to.equal(
      'Operator.webhookManifest: webhooks: the operator has no webhook server: give the Operator option webhooks: { port: 9443, ... }',
    );
  });
});
