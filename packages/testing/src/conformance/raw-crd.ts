// CRDs created and deleted as raw JSON: client-node's model drops the x-kubernetes-* schema
// fields it knows only by their snake-case names, and these tests need them verbatim.
import type { KubeConfig } from '@kubernetes/client-node';
import { expect } from 'chai';
import { rawRequest } from '../helpers/raw-request.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Creates a CRD from its JSON form and expects 201. */
export async function createRawCrd(kubeConfig: KubeConfig, crd: { metadata: { name: string } }): Promise<void> {
  const created = await rawRequest(kubeConfig, {
    method: 'POST',
    path: CRDS,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(crd),
  });
  expect(created.status, created.text).to.equal(201);
}

/** Deletes a CRD by name and expects 200. */
export async function deleteRawCrd(kubeConfig: KubeConfig, name: string): Promise<void> {
  const deleted = await rawRequest(kubeConfig, { method: 'DELETE', path: `${CRDS}/${name}` });
  expect(deleted.status, deleted.text).to.equal(200);
}
