import { expect } from 'chai';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { generateWebhookCertificates } from '../index.js';

describe('generateWebhookCertificates', () => {
  it('makes a CA and a serving certificate it signs, valid for the hosts asked as subjectAltNames', async () => {
    const { cert, key, caCert } = await generateWebhookCertificates({ hosts: ['127.0.0.1', 'web.operators.svc'], validityDays: 2 });
    const ca = new X509Certificate(caCert);
    const serving = new X509Certificate(cert);
    expect(ca.ca).to.equal(true);
    expect(serving.ca).to.equal(false);
    expect(serving.verify(ca.publicKey)).to.equal(true);
    expect(serving.checkIssued(ca)).to.equal(true);
    expect(serving.subjectAltName).to.equal('IP Address:127.0.0.1, DNS:web.operators.svc');
    expect(serving.checkIP('127.0.0.1')).to.equal('127.0.0.1');
    expect(serving.checkHost('web.operators.svc')).to.equal('web.operators.svc');
    expect(serving.checkPrivateKey(createPrivateKey(key))).to.equal(true);
    const days = (Date.parse(serving.validTo) - Date.parse(serving.validFrom)) / 86_400_000;
    expect(days).to.be.closeTo(2, 0.01);
  });

  it('defaults to the loopback addresses and localhost', async () => {
    const serving = new X509Certificate((await generateWebhookCertificates()).cert);
    expect(serving.subjectAltName).to.equal('IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:localhost');
  });
});
