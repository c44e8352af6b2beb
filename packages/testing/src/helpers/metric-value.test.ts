import { expect } from 'chai';
import { metricValue } from '../internal.js';

const text = `# HELP requests_total Requests
# TYPE requests_total counter
requests_total{code="200",path="/a"} 3
requests_total{code="500",path="/a"} 1
requests_total{code="200",path="/b \\"quoted\\""} 2
up 1
`;

describe('metricValue', () => {
  it('reads one series by its labels', () => {
    expect(metricValue(text, 'requests_total', { code: '500', path: '/a' })).to.equal(1);
    expect(metricValue(text, 'up')).to.equal(1);
  });

  it('sums the series a partial label set matches, unescaping label values', () => {
    expect(metricValue(text, 'requests_total', { code: '200' })).to.equal(5);
    expect(metricValue(text, 'requests_total', { path: '/b "quoted"' })).to.equal(2);
  });

  it('is undefined for a missing series, not zero', () => {
    expect(metricValue(text, 'requests_total', { code: '404' })).to.equal(undefined);
    expect(metricValue(text, 'requests')).to.equal(undefined);
  });
});
