import { expect } from 'chai';
import { startTestApiServer, UnknownApiServerFlavorError } from './index.js';
import { apiServerFlavorFromEnvironment } from './internal.js';

describe('apiServerFlavorFromEnvironment', () => {
  it('defaults to embedded when KINDEX_APISERVER is unset or empty', () => {
    expect(apiServerFlavorFromEnvironment({})).to.equal('embedded');
    expect(apiServerFlavorFromEnvironment({ KINDEX_APISERVER: '' })).to.equal('embedded');
  });

  it('accepts embedded and real', () => {
    expect(apiServerFlavorFromEnvironment({ KINDEX_APISERVER: 'embedded' })).to.equal('embedded');
    expect(apiServerFlavorFromEnvironment({ KINDEX_APISERVER: 'real' })).to.equal('real');
  });

  it('rejects any other value with an error naming it', () => {
    expect(() => apiServerFlavorFromEnvironment({ KINDEX_APISERVER: 'kind' }))
      .to.throw(UnknownApiServerFlavorError)
      .with.property('message')
      .that.contains("'kind'");
  });
});

describe('startTestApiServer', () => {
  it('rejects an unknown KINDEX_APISERVER before starting anything', async () => {
    const saved = process.env['KINDEX_APISERVER'];
    process.env['KINDEX_APISERVER'] = 'minikube';
    try {
      const error = await startTestApiServer().catch((e: unknown) => e);
      expect(error).to.be.instanceOf(UnknownApiServerFlavorError);
    } finally {
      if (saved === undefined) delete process.env['KINDEX_APISERVER'];
      else process.env['KINDEX_APISERVER'] = saved;
    }
  });

  it('starts the server KINDEX_APISERVER names, serving /version to its kubeconfig', async function () {
    this.timeout(120_000);
    const server = await startTestApiServer();
    try {
      expect(server.flavor).to.equal(apiServerFlavorFromEnvironment());
      const { VersionApi } = await import('@kubernetes/client-node');
      const version = await server.kubeConfig.makeApiClient(VersionApi).getCode();
      expect(version.gitVersion).to.be.a('string');
    } finally {
      await server.stop();
    }
  });
});
