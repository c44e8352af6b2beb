import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { UnsupportedRuntimeError } from '../index.js';
import { assertSupportedRuntime, unsupportedRuntime } from '../internal.js';

describe('supported runtime', () => {
  it('accepts client-node 1.4 on Node 20, 22 and 24', () => {
    for (const node of ['20.19.0', '22.12.0', '24.21.0']) expect(unsupportedRuntime(node, '1.4.0')).to.equal(undefined);
  });

  it('accepts client-node 2.0.1+ from Node 22.19 on', () => {
    expect(unsupportedRuntime('22.19.0', '2.0.1')).to.equal(undefined);
    expect(unsupportedRuntime('24.21.0', '2.3.0')).to.equal(undefined);
  });

  it('rejects client-node 2.x below Node 22.19, naming both versions and both fixes', () => {
    for (const node of ['20.20.0', '22.18.9']) {
      const error = unsupportedRuntime(node, '2.0.1');
      expect(error).to.be.instanceOf(UnsupportedRuntimeError);
      expect(error?.message).to.contain(`Node.js ${node}`).and.contain('client-node 2.0.1');
      expect(error?.message).to.contain('22.19').and.contain('@kubernetes/client-node@^1.4.0');
    }
  });

  it('rejects client-node 2.0.0 everywhere (its Watch aborts after 30 s)', () => {
    expect(unsupportedRuntime('24.21.0', '2.0.0')?.message).to.contain('2.0.0 aborts every watch').and.contain('^2.0.1');
  });

  it('lets unreadable versions through rather than guess', () => {
    expect(unsupportedRuntime('20.20.0', 'next')).to.equal(undefined);
  });

  describe('assertSupportedRuntime', () => {
    let dir: string;
    let importer: URL;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'kindex-runtime-'));
      importer = pathToFileURL(join(dir, 'index.js'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const install = (version: string): void => {
      const pkg = join(dir, 'node_modules', '@kubernetes', 'client-node');
      mkdirSync(pkg, { recursive: true });
      writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@kubernetes/client-node', version }));
    };

    it('reads the client-node installed where the importer resolves it', () => {
      install('2.0.1');
      expect(() => assertSupportedRuntime(importer, '20.20.0')).to.throw(UnsupportedRuntimeError, 'needs Node.js 22.19');
      expect(() => assertSupportedRuntime(importer, '24.21.0')).not.to.throw();
    });

    it('does nothing when client-node is not installed', () => {
      expect(() => assertSupportedRuntime(importer, '20.20.0')).not.to.throw();
    });
  });
});
