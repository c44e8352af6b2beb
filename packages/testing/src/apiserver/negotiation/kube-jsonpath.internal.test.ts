// Cases from client-go's util/jsonpath/jsonpath_test.go (v0.36.3; those without range/end), with
// missing keys allowed as the printer allows them, plus the filters printer columns use. Every
// expectation was checked against client-go v0.36.3 itself (jsonpath.New().AllowMissingKeys(true)
// on data decoded by apimachinery's util/json, integers as int64, as a custom resource is).
import { expect } from 'chai';
import { parseKubeJsonPath, printJsonPathValue } from './kube-jsonpath.js';
import { JsonPathSyntaxError } from './kube-jsonpath-parser.js';

/** client-go's Execute: each top-level node's results space-separated, a null printed as `null`. */
function execute(template: string, data: unknown): string | undefined {
  const results = parseKubeJsonPath(template).findResults(data);
  return results?.map((values) => values.map((v) => (v === null ? 'null' : printJsonPathValue(v))).join(' ')).join('');
}

const points = [
  { id: 'i1', x: 4, y: -5 },
  { id: 'i2', x: -2, y: -5, z: 1 },
  { id: 'i3', x: 8, y: 3 },
  { id: 'i4', x: -6, y: -1 },
  { id: 'i5', x: 0, y: 2, z: 1 },
  { id: 'i6', x: 1, y: 4 },
  { id: 'i7', x: null, y: 4 },
];
const nodes = {
  kind: 'List',
  items: [
    {
      kind: 'None',
      metadata: { name: '127.0.0.1', labels: { 'kubernetes.io/hostname': '127.0.0.1' } },
      status: { capacity: { cpu: '4' }, ready: true, addresses: [{ type: 'LegacyHostIP', address: '127.0.0.1' }] },
    },
    {
      kind: 'None',
      metadata: { name: '127.0.0.2', labels: { 'kubernetes.io/hostname': '127.0.0.2' } },
      status: {
        capacity: { cpu: '8' },
        ready: false,
        addresses: [
          { type: 'LegacyHostIP', address: '127.0.0.2' },
          { type: 'another', address: '127.0.0.3' },
        ],
      },
    },
  ],
  users: [
    { name: 'myself', user: {} },
    { name: 'e2e', user: { username: 'admin', password: 'secret' } },
  ],
};
const containers = { spec: { containers: ['fake0', 'fake1', 'fake2', 'fake3', 'fake4', 'fake5'].map((name) => ({ name })) } };

describe('parseKubeJsonPath', () => {
  it("evaluates client-go's JSON cases", () => {
    expect(execute('{[?(@.z)].id}', points)).to.equal('i2 i5');
    expect(execute("{[0]['id']}", points)).to.equal('i1');
    expect(execute("{[-1]['x']}", points)).to.equal('null');
    expect(execute('{.items[*].status.addresses[*].address}', nodes)).to.equal('127.0.0.1 127.0.0.2 127.0.0.3');
    expect(execute('{.items[*].metadata.name}', nodes)).to.equal('127.0.0.1 127.0.0.2');
    expect(execute("{.items[*]['metadata.name', 'status.capacity']}", nodes)).to.equal('127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}');
    expect(execute('{.users[?(@.name=="e2e")].user.password}', nodes)).to.equal('secret');
    expect(execute('{.items[0].metadata.labels.kubernetes\\.io/hostname}', nodes)).to.equal('127.0.0.1');
    expect(execute('{.items[?(@.metadata.labels.kubernetes\\.io/hostname=="127.0.0.1")].kind}', nodes)).to.equal('None');
    expect(execute('{.items[?(@..ready==true)].metadata.name}', nodes)).to.equal('127.0.0.1');
    expect(execute('{..name}', nodes)?.split(' ').sort()).to.deep.equal(['127.0.0.1', '127.0.0.2', 'e2e', 'myself']);
  });

  it('slices as client-go does: negative indexes, steps, empty ranges, and errors out of bounds', () => {
    expect(execute('{.spec.containers[0].name}', containers)).to.equal('fake0');
    expect(execute('{.spec.containers[0:0].name}', containers)).to.equal('');
    expect(execute('{.spec.containers[0:-1].name}', containers)).to.equal('fake0 fake1 fake2 fake3 fake4');
    expect(execute('{.spec.containers[-1].name}', containers)).to.equal('fake5');
    expect(execute('{.spec.containers[-2:].name}', containers)).to.equal('fake4 fake5');
    expect(execute('{.spec.containers[1:4:2].name}', containers)).to.equal('fake1 fake3');
    expect(execute('{.spec.containers[0:6:].name}', containers)).to.equal('fake0 fake1 fake2 fake3 fake4 fake5');
    expect(execute('{.spec.containers[-1:0].name}', containers)).to.equal(undefined);
    expect(execute('{.spec.containers[0:6:0].name}', containers)).to.equal(undefined);
    expect(execute('{.spec.containers[6].name}', containers)).to.equal(undefined);
    expect(execute('{.spec.containers[-7].name}', containers)).to.equal(undefined);
  });

  it('filters on the Ready condition, as kubebuilder printer columns do', () => {
    const widget = {
      status: {
        conditions: [
          { type: 'Progressing', status: 'False', observedGeneration: 2 },
          { type: 'Ready', status: 'True', observedGeneration: 3 },
        ],
      },
    };
    expect(execute('{.status.conditions[?(@.type=="Ready")].status}', widget)).to.equal('True');
    expect(execute("{.status.conditions[?(@.type == 'Ready')].status}", widget)).to.equal('True');
    expect(execute('{.status.conditions[?(@.type!="Ready")].type}', widget)).to.equal('Progressing');
    expect(execute('{.status.conditions[?(@.observedGeneration>2)].type}', widget)).to.equal('Ready');
    expect(execute('{.status.conditions[?(@.observedGeneration<=2)].type}', widget)).to.equal('Progressing');
    expect(execute('{.status.conditions[?(@.observedGeneration>=2)].type}', widget)).to.equal('Progressing Ready');
    expect(execute('{.status.conditions[?(@.reason)].type}', widget)).to.equal('');
    // Missing keys yield nothing; a missing list filters to nothing.
    expect(execute('{.status.conditions[?(@.type=="Ready")].reason}', widget)).to.equal('');
    expect(execute('{.status.missing[?(@.type=="Ready")].status}', widget)).to.equal('');
    expect(execute('{.status.conditions[?(@.type=="Ready")].status}', {})).to.equal('');
  });

  it("fails where Go's comparisons fail: an integer with a float, a string with a number, an unquoted word", () => {
    const data = { items: [{ n: 2, s: '2', f: 2.5 }] };
    expect(execute('{.items[?(@.n==2)].s}', data)).to.equal('2');
    expect(execute('{.items[?(@.f>2.0)].s}', data)).to.equal('2');
    expect(execute('{.items[?(@.n==2.0)].s}', data)).to.equal(undefined);
    expect(execute('{.items[?(@.s==2)].s}', data)).to.equal(undefined);
    expect(execute('{.items[?(@.s==two)].s}', data)).to.equal(undefined);
    expect(execute('{.items[?(@.n=2)].s}', data)).to.equal(undefined);
    expect(execute('{.items[0][0]}', data)).to.equal(undefined);
    expect(execute('{.items[?(@.n)].s}', { items: null })).to.equal(undefined);
  });

  it("refuses what client-go's parser refuses, with its message", () => {
    for (const [template, message] of [
      ['{.a', 'unclosed action'],
      ['{.a[0}', 'unterminated array'],
      ['{.a[x]}', 'invalid array index x'],
      ['{.a[?(@.b=="c"}', 'unterminated filter'],
      ['{.a[?(@.b=="c")}', 'unclosed array expect ]'],
      ['{.a[1:x]}', 'invalid array index 1:x'],
      ['{.a....b}', 'invalid multiple recursive descent'],
      ['{"abc}', 'unterminated quoted string'],
      ['{#}', "unrecognized character in action: U+0023 '#'"],
      ['{.a && .b}', "unrecognized character in action: U+0026 '&'"],
    ] as const) {
      expect(() => parseKubeJsonPath(template), template).to.throw(JsonPathSyntaxError, message);
    }
  });

  it('prints values as Go does: JSON for objects with sorted keys, Go floats, <no value> for null', () => {
    expect(printJsonPathValue({ b: 1, a: ['<x>'] })).to.equal('{"a":["\\u003cx\\u003e"],"b":1}');
    expect(printJsonPathValue(3)).to.equal('3');
    expect(printJsonPathValue(0.5)).to.equal('0.5');
    expect(printJsonPathValue(1234567.5)).to.equal('1.2345675e+06');
    expect(printJsonPathValue(0.00001)).to.equal('1e-05');
    expect(printJsonPathValue(true)).to.equal('true');
    expect(printJsonPathValue(null)).to.equal('<no value>');
  });
});
