import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { createNamespace, useTestApiServer } from '@kindex/testing';
import {
  Operator,
  OperatorStartRefusedError,
  defineOperator,
  runOperator,
  type OperatorDefinition,
  type OperatorDefinitionContext,
} from '../index.js';
import { describeOnly } from '../internal.js';
import { Widgets } from '../manifests/fixtures/widget-operator.js';

function offline(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://offline.invalid', skipTLSVerify: false }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u', namespace: 'from-context' }],
    currentContext: 'x',
  });
  return kubeConfig;
}

/** What `promise` rejected with; fails when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('defineOperator', () => {
  const create = ({ kubeConfig }: OperatorDefinitionContext): Operator => new Operator({ kubeConfig });

  it('returns the definition it was given', () => {
    const definition: OperatorDefinition = { name: 'widget-operator', customResources: [Widgets], create };
    expect(defineOperator(definition)).to.equal(definition);
  });

  const refuses = (definition: unknown, message: string): void => {
    expect(() => defineOperator(definition as OperatorDefinition))
      .to.throw(TypeError, message)
      .with.property('message')
      .that.does.not.contain('\n');
  };

  it('refuses a name that cannot name the ServiceAccount, Deployment and Services', () => {
    refuses(
      { name: 'Widget_Operator', create },
      'operator definition: name "Widget_Operator" must be lower-case letters, digits and \'-\'',
    );
    refuses({ name: '1-operator', create }, 'start with a letter');
    refuses({ name: `a${'b'.repeat(47)}`, create }, 'at most 47 characters');
  });

  it('refuses custom resources not made by customResource(), or listed twice', () => {
    refuses(
      { name: 'w', customResources: [{ kind: 'Widget' }], create },
      'operator definition w: customResources[0] is not a custom resource; list values returned by customResource()',
    );
    refuses(
      { name: 'w', customResources: [Widgets, Widgets], create },
      'customResources[1] lists widgets.manifests.kindex.dev a second time',
    );
  });

  it('refuses a definition without create, with an unknown key, or with a negative drain', () => {
    refuses({ name: 'w' }, 'operator definition w: create must be a function');
    expect(() => defineOperator({ name: 'w', create, image: 'x' } as never)).to.throw(/image/);
    refuses({ name: 'w', create, gracefulShutdownTimeoutMs: -1 }, 'gracefulShutdownTimeoutMs must be a whole number of milliseconds >= 0');
  });
});

describe('describeOnly', () => {
  it('makes Operator.start() refuse with OperatorStartRefusedError, naming the module and the fix', async () => {
    const operator = new Operator({ kubeConfig: offline() });
    const error = await rejection(describeOnly('src/main.ts', 'kindex manifests', () => operator.start()));
    expect(error).to.be.instanceOf(OperatorStartRefusedError);
    expect((error as Error).message).to.equal(
      'src/main.ts starts the operator when imported; point kindex manifests at the module that exports the definition (e.g. src/operator.ts), and start it from src/main.ts with runOperator(definition)',
    );
  });

  it('refuses too when the module caught the start or did not await it', async () => {
    const operator = new Operator({ kubeConfig: offline() });
    const caught = describeOnly('a.ts', 'kindex manifests', async () => {
      await operator.start().catch(() => {});
      return 'loaded';
    });
    expect(await rejection(caught)).to.be.instanceOf(OperatorStartRefusedError);
    const forgotten = describeOnly('b.ts', 'kindex manifests', async () => {
      void operator.run({ exit: false });
      return 'loaded';
    });
    expect(await rejection(forgotten)).to.be.instanceOf(OperatorStartRefusedError);
  });

  it('makes Operator.run() reject, not exit the describing process', async () => {
    const operator = new Operator({ kubeConfig: offline() });
    expect(await rejection(describeOnly('e.ts', 'kindex manifests', () => operator.run()))).to.be.instanceOf(OperatorStartRefusedError);
  });

  it('lets start() through again afterwards, and returns what the load returned', async () => {
    expect(await describeOnly('c.ts', 'kindex manifests', () => Promise.resolve(42))).to.equal(42);
    const operator = new Operator({ kubeConfig: offline() });
    // No controllers: start() resolves without a request.
    await operator.start();
    await operator.stop();
  });

  it('makes runOperator refuse before it loads any kubeconfig', async () => {
    let created = false;
    const definition = defineOperator({ name: 'w', create: () => ((created = true), new Operator({ kubeConfig: offline() })) });
    expect(await rejection(describeOnly('d.ts', 'kindex manifests', () => runOperator(definition)))).to.be.instanceOf(
      OperatorStartRefusedError,
    );
    expect(created).to.equal(false);
  });
});

describe('runOperator', function () {
  this.timeout(60_000);
  const server = useTestApiServer({ shared: true });

  it('creates the operator in the given namespace and runs it until a signal', async () => {
    const namespace = await createNamespace(server().kubeConfig);
    const seen: string[] = [];
    const definition = defineOperator({
      name: 'widget-operator',
      create: ({ kubeConfig, namespace: ns }) => {
        seen.push(ns);
        return new Operator({ kubeConfig, leaderElection: { leaseName: 'w', leaseNamespace: ns } });
      },
    });
    let started = false;
    await runOperator(definition, {
      kubeConfig: server().kubeConfig,
      namespace,
      exit: false,
      signals: ['SIGUSR2'],
      onStarted: () => {
        started = true;
        process.kill(process.pid, 'SIGUSR2');
      },
    });
    expect(started).to.equal(true);
    expect(seen).to.deep.equal([namespace]);
  });

  it('takes the namespace from POD_NAMESPACE, else from the kubeconfig context', async () => {
    const seen: string[] = [];
    const definition = defineOperator({
      name: 'w',
      create: ({ kubeConfig, namespace }) => (seen.push(namespace), new Operator({ kubeConfig })),
    });
    const options = {
      kubeConfig: offline(),
      exit: false,
      signals: ['SIGUSR2' as const],
      onStarted: () => process.kill(process.pid, 'SIGUSR2'),
    };
    const before = process.env['POD_NAMESPACE'];
    try {
      process.env['POD_NAMESPACE'] = 'from-pod';
      await runOperator(definition, options);
      delete process.env['POD_NAMESPACE'];
      await runOperator(definition, options);
    } finally {
      if (before === undefined) delete process.env['POD_NAMESPACE'];
      else process.env['POD_NAMESPACE'] = before;
    }
    expect(seen).to.deep.equal(['from-pod', 'from-context']);
  });

  it('refuses unknown options, naming them', async () => {
    const definition = defineOperator({ name: 'w', create: ({ kubeConfig }) => new Operator({ kubeConfig }) });
    expect(String(await rejection(runOperator(definition, { namespce: 'x' } as never)))).to.match(/runOperator options.*namespce/);
  });
});
