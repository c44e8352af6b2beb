import { X509Certificate } from 'node:crypto';
import { expect } from 'chai';
import { certificateSerial, selfSignedCertificate } from './self-signed-certificate.js';

describe('selfSignedCertificate', () => {
  it('encodes the serial as a minimal positive DER INTEGER whatever the random bytes', () => {
    // The two first bytes that broke DER before: 0x00 (padding) and 0x80 (negative).
    for (const first of [0x00, 0x01, 0x3f, 0x40, 0x7f, 0x80, 0xbf, 0xff]) {
      const random = Buffer.alloc(16, 0x05);
      random[0] = first;
      const serial = certificateSerial(random);
      expect(serial.length).to.equal(16);
      expect(serial[0]).to.be.within(0x40, 0x7f);
      expect(serial.subarray(1)).to.deep.equal(random.subarray(1));
    }
  });

  it('yields certificates OpenSSL parses, for 127.0.0.1, ::1 and localhost', () => {
    for (let i = 0; i < 64; i++) {
      const { cert } = selfSignedCertificate(`node-${i}`);
      const x509 = new X509Certificate(cert);
      expect(x509.subject).to.equal(`CN=node-${i}`);
      expect(x509.checkIP('127.0.0.1')).to.equal('127.0.0.1');
      expect(x509.checkHost('localhost')).to.equal('localhost');
      expect(x509.serialNumber.length).to.equal(32);
    }
  });
});
