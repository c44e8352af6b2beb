import { expect } from 'chai';
import { VersionApi } from '@kubernetes/client-node';
import { useTestApiServer, type TestApiServer } from '../index.js';

describe('useTestApiServer', () => {
  let first: TestApiServer | undefined;
  let own: TestApiServer | undefined;

  describe('a suite sharing its server', () => {
    const server = useTestApiServer({ shared: true, historyWindow: 77 });
    it('gets a running server', async () => {
      first = server();
      expect((await server().kubeConfig.makeApiClient(VersionApi).getCode()).gitVersion).to.be.a('string');
    });
  });

  describe('the next suite sharing a server with the same options', () => {
    const server = useTestApiServer({ shared: true, historyWindow: 77 });
    it('gets the same server', () => {
      expect(server()).to.equal(first);
    });
  });

  describe('a suite that does not share', () => {
    const server = useTestApiServer({ historyWindow: 77 });
    it('gets a server of its own', () => {
      own = server();
      expect(own).to.not.equal(first);
    });
  });

  describe('after the suites', () => {
    it('the shared server stops once no suite has used it for a moment, and the own one at its suite end', async function () {
      this.timeout(30_000);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      for (const stopped of [first!, own!]) {
        const error = await stopped.kubeConfig
          .makeApiClient(VersionApi)
          .getCode()
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(error, stopped.url).to.be.instanceOf(Error);
      }
    });
  });
});
