import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { LeaseSchema } from './generated/k8s.io/api/coordination/v1/generated_pb.js';
import { PodSchema, SecretSchema } from './generated/k8s.io/api/core/v1/generated_pb.js';
import { CustomResourceDefinitionSchema } from './generated/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/generated_pb.js';
import { SubjectAccessReviewSchema } from './generated/k8s.io/api/authorization/v1/generated_pb.js';
import { jsonToMessage, messageToJson } from './proto-json.js';
import type { DescMessage } from '@bufbuild/protobuf';

/** Kubernetes JSON through the protobuf wire and back. */
function roundTrip(schema: DescMessage, json: Record<string, unknown>): unknown {
  return messageToJson(schema, fromBinary(schema, toBinary(schema, jsonToMessage(schema, json))));
}

describe('proto-json (Kubernetes JSON ⇄ protobuf messages)', () => {
  it('keeps Quantity, IntOrString (number and name), Time and managedFields through a round trip', () => {
    const pod = {
      metadata: {
        name: 'p',
        creationTimestamp: '2026-11-25T21:20:30Z',
        managedFields: [{ manager: 'm', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { '.': {} } } }],
      },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'i',
            resources: { limits: { cpu: '100m', memory: '64Mi' } },
            readinessProbe: { httpGet: { path: '/ready', port: 'http' } },
            livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 10 },
          },
        ],
        terminationGracePeriodSeconds: 0,
      },
    };
    expect(roundTrip(PodSchema, pod)).to.deep.equal(pod);
  });

  it('writes the wire forms Kubernetes uses: seconds for Time, int64 as bigint, Quantity as a string field', () => {
    const message = jsonToMessage(PodSchema, {
      metadata: { creationTimestamp: '2026-11-25T21:20:30Z', generation: 3 },
      spec: { containers: [{ name: 'c', resources: { limits: { cpu: '1' } } }] },
    });
    const pod = fromBinary(PodSchema, toBinary(PodSchema, message));
    expect(pod.metadata?.creationTimestamp?.seconds).to.equal(BigInt(Date.parse('2026-11-25T21:20:30Z') / 1000));
    expect(pod.metadata?.generation).to.equal(3n);
    expect(pod.spec?.containers[0]?.resources?.limits['cpu']?.string).to.equal('1');
  });

  it('keeps MicroTime to the microsecond, and bytes as base64', () => {
    const lease = {
      metadata: { name: 'l' },
      spec: { holderIdentity: 'a', renewTime: '2026-11-25T21:20:30.123456Z', leaseDurationSeconds: 15 },
    };
    expect(roundTrip(LeaseSchema, lease)).to.deep.equal(lease);
    const secret = { metadata: { name: 's' }, data: { token: Buffer.from('hello').toString('base64') }, type: 'Opaque' };
    expect(roundTrip(SecretSchema, secret)).to.deep.equal(secret);
  });

  it("leaves out Go's zero values, as gogo writes every non-pointer field, but keeps pointer fields set to zero", () => {
    // What Go's marshaller sends for an empty ObjectMeta and status: every string, present and empty.
    const pod = create(PodSchema, {
      metadata: { name: 'p', generateName: '', namespace: '', uid: '', generation: 0n },
      spec: { containers: [], terminationGracePeriodSeconds: 0n, hostNetwork: false },
      status: { phase: '' },
    });
    expect(messageToJson(PodSchema, fromBinary(PodSchema, toBinary(PodSchema, pod)))).to.deep.equal({
      metadata: { name: 'p' },
      spec: { terminationGracePeriodSeconds: 0 },
      status: {},
    });
  });

  it('names JSONSchemaProps fields as the CRD JSON does ($ref, x-kubernetes-*), with its OrBool and OrArray forms and raw JSON values', () => {
    const crd = {
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', kind: 'Widget' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    'x-kubernetes-preserve-unknown-fields': true,
                    'x-kubernetes-validations': [{ rule: 'self.size > 0' }],
                    properties: { size: { type: 'integer', default: 3, enum: [1, 3] }, port: { 'x-kubernetes-int-or-string': true } },
                  },
                  tags: { type: 'array', items: { type: 'string' } },
                  extra: { type: 'object', additionalProperties: false },
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                },
                required: ['spec'],
              },
            },
          },
        ],
      },
    };
    expect(roundTrip(CustomResourceDefinitionSchema, crd)).to.deep.equal(crd);
  });

  it('reads maps of string lists (a review subject’s extra)', () => {
    const review = { spec: { user: 'u', extra: { scopes: ['a', 'b'] }, resourceAttributes: { verb: 'get', resource: 'pods' } } };
    expect(roundTrip(SubjectAccessReviewSchema, review)).to.deep.equal(review);
  });
});
