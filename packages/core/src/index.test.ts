import { expect } from 'chai';
import { PACKAGE_NAME } from './index.js';
describe('core', () => { it('loads', () => { expect(PACKAGE_NAME).to.equal('@kindex/core'); }); });
