import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { crdYaml } from '@kindex/informer/internal';
import { sampleCrds } from '@kindex/sample-job-cluster/src/install-crds.js';
import { WebPageKind } from '@kindex/sample-job-cluster/src/webpage/webpage-model.js';

const crdsDir = fileURLToPath(new URL('../../samples/job-cluster/crds/', import.meta.url));

/** Each module `pnpm run crds` generates from, with the CRDs it exports. */
const generatedFrom = [
  { source: 'src/model.ts', crds: sampleCrds() },
  { source: 'src/webpage/webpage-model.ts', crds: [WebPageKind.crd] },
];

/**
 * The sample's CRD YAML is a build output of its TypeScript definitions (model.ts for Job/Cluster,
 * webpage/webpage-model.ts for WebPage): this check fails when someone edits one without
 * generating the other.
 */
describe('samples/job-cluster/crds', () => {
  it('is the current output of `pnpm run crds` (kindex crd generate <module> --out crds)', () => {
    const expected = new Map(
      generatedFrom.flatMap(({ source, crds }) => crds.map((crd) => [`${crd.metadata.name}.yaml`, crdYaml([crd], source)] as const)),
    );
    const files = readdirSync(crdsDir).filter((f) => f.endsWith('.yaml'));
    expect(files.sort(), 'files in crds/ without a definition, or definitions without a file').to.deep.equal([...expected.keys()].sort());
    for (const [file, yaml] of expected) {
      expect(
        readFileSync(`${crdsDir}${file}`, 'utf8'),
        `${file} is stale: run \`pnpm --filter @kindex/sample-job-cluster run crds\``,
      ).to.equal(yaml);
    }
  });
});
