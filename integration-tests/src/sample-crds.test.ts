import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { crdYaml } from '@kindex/informer';
import { sampleCrds } from '@kindex/sample-job-cluster/src/install-crds.js';

const crdsDir = fileURLToPath(new URL('../../samples/job-cluster/crds/', import.meta.url));

/**
 * The Job/Cluster sample's CRD YAML is a build output of its TypeScript definitions (model.ts):
 * this check fails when someone edits one without generating the other.
 */
describe('samples/job-cluster/crds', () => {
  it('is the current output of `pnpm run crds` (kindex crd generate src/model.ts --out crds)', () => {
    const expected = new Map(sampleCrds().map((crd) => [`${crd.metadata.name}.yaml`, crdYaml([crd], 'src/model.ts')]));
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
