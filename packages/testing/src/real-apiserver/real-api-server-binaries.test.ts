import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { RealApiServerBinariesMissingError } from '../index.js';
import { REAL_APISERVER_BUILD_COMMAND, realApiServerBinaries } from '../internal.js';

describe('realApiServerBinaries', () => {
  let root: string;
  let scriptsDir: string;
  let cacheDir: string;

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'kindex-binaries-test-'));
    scriptsDir = path.join(root, 'scripts');
    cacheDir = path.join(root, 'cache');
    mkdirSync(path.join(scriptsDir, 'kube-apiserver'), { recursive: true });
    mkdirSync(path.join(scriptsDir, 'etcd'), { recursive: true });
    // The two shapes `go mod tidy` leaves: a require block with // indirect, and a one-line require.
    writeFileSync(
      path.join(scriptsDir, 'kube-apiserver', 'go.mod'),
      'module x\n\nrequire (\n\tk8s.io/api v0.36.3 // indirect\n\tk8s.io/kubernetes v1.36.3 // indirect\n)\n\nreplace k8s.io/api => k8s.io/api v0.36.3\n',
    );
    writeFileSync(path.join(scriptsDir, 'etcd', 'go.mod'), 'module y\n\nrequire go.etcd.io/etcd/server/v3 v3.6.8\n');
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function install(relative: string): string {
    const file = path.join(cacheDir, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '#!/bin/sh\n', { mode: 0o755 });
    return file;
  }

  it('finds the three binaries under <cache>/<name>-<pinned version>/', () => {
    const kubeApiServer = install('kube-apiserver-v1.36.3/kube-apiserver');
    const kubeControllerManager = install('kube-controller-manager-v1.36.3/kube-controller-manager');
    const etcd = install('etcd-v3.6.8/etcd');
    expect(realApiServerBinaries({ scriptsDir, cacheDir })).to.deep.equal({
      kubeApiServer,
      kubeControllerManager,
      etcd,
      kubernetesVersion: 'v1.36.3',
      etcdVersion: 'v3.6.8',
    });
  });

  it('reads the cache root from KINDEX_CACHE_DIR as build.sh does', () => {
    install('kube-apiserver-v1.36.3/kube-apiserver');
    install('kube-controller-manager-v1.36.3/kube-controller-manager');
    install('etcd-v3.6.8/etcd');
    expect(realApiServerBinaries({ scriptsDir, env: { KINDEX_CACHE_DIR: cacheDir } }).etcd).to.equal(
      path.join(cacheDir, 'etcd-v3.6.8', 'etcd'),
    );
  });

  function expectMissing(missing: string): void {
    expect(() => realApiServerBinaries({ scriptsDir, cacheDir }))
      .to.throw(RealApiServerBinariesMissingError)
      .that.satisfies((error: RealApiServerBinariesMissingError) => {
        expect(error.path).to.equal(missing);
        expect(error.message).to.include(missing).and.include(REAL_APISERVER_BUILD_COMMAND);
        return true;
      });
  }

  it('names the missing binary and the build command when a binary is not built', () => {
    install('etcd-v3.6.8/etcd');
    expectMissing(path.join(cacheDir, 'kube-apiserver-v1.36.3', 'kube-apiserver'));
  });

  it('names kube-controller-manager when it is the one binary not built (a cache from before it was added)', () => {
    install('kube-apiserver-v1.36.3/kube-apiserver');
    install('etcd-v3.6.8/etcd');
    expectMissing(path.join(cacheDir, 'kube-controller-manager-v1.36.3', 'kube-controller-manager'));
  });

  it('reports a scratch module that pins no version', () => {
    writeFileSync(path.join(scriptsDir, 'etcd', 'go.mod'), 'module y\n');
    expect(() => realApiServerBinaries({ scriptsDir, cacheDir })).to.throw(
      RealApiServerBinariesMissingError,
      /does not require go\.etcd\.io\/etcd\/server\/v3/,
    );
  });

  it('without scratch modules (a published @kindex/testing), runs the newest binaries in the cache', () => {
    for (const version of ['v1.9.0', 'v1.36.3', 'v1.36.10']) {
      install(`kube-apiserver-${version}/kube-apiserver`);
      install(`kube-controller-manager-${version}/kube-controller-manager`);
    }
    install('etcd-v3.6.8/etcd');
    install('etcd-v3.5.21/etcd');
    const binaries = realApiServerBinaries({ scriptsDir: path.join(root, 'no-scripts'), cacheDir });
    expect(binaries).to.deep.include({ kubernetesVersion: 'v1.36.10', etcdVersion: 'v3.6.8' });
    expect(binaries.kubeApiServer).to.equal(path.join(cacheDir, 'kube-apiserver-v1.36.10', 'kube-apiserver'));
    rmSync(cacheDir, { recursive: true });
    expect(() => realApiServerBinaries({ scriptsDir: path.join(root, 'no-scripts'), cacheDir })).to.throw(
      RealApiServerBinariesMissingError,
      `no kube-apiserver in ${path.join(cacheDir, 'kube-apiserver-<version>')}: build it with ${REAL_APISERVER_BUILD_COMMAND}`,
    );
  });

  it('reads the committed scratch modules of this repository by default', () => {
    // Only the pins are checked: the binaries themselves may not be built on this machine.
    try {
      const binaries = realApiServerBinaries({ cacheDir });
      expect.fail(`an empty cache should not hold ${binaries.kubeApiServer}`);
    } catch (error) {
      expect(error).to.be.instanceOf(RealApiServerBinariesMissingError);
      expect((error as RealApiServerBinariesMissingError).path).to.match(/kube-apiserver-v1\.\d+\.\d+\/kube-apiserver$/);
    }
  });
});
