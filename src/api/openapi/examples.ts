/**
 * One story told across the examples of the document: Acme asks Ann for her full name, keeps it,
 * corrects it, and is offered her next version. Each validates against its schema
 * (test/api/openapi-typed.test.ts), so a reader can paste one and a generated client can trust it.
 */

export const ids = {
  organizationId: '0b5e3c1a-6d2f-4a8e-9c47-1f2e3d4c5b6a',
  manifestId: '7c9d1e2f-3a4b-4c5d-8e6f-0a1b2c3d4e5f',
  slotId: '2d4f6a8c-1e3b-4d5f-a7c9-e1f3a5b7c9d1',
  fileSlotId: '3e5a7c9e-2f4c-4e6a-b8d0-f2a4b6c8d0e2',
  requestId: '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d',
  resourceId: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
  adoptionId: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
  orgResourceId: 'e4f5a6b7-c8d9-4e0f-9a1b-2c3d4e5f6a7b',
  proposalId: 'd7e8f9a0-b1c2-4d3e-8f4a-5b6c7d8e9f0a',
  orgFileId: 'f0e1d2c3-b4a5-4697-8877-665544332211',
  clientId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  oauthClientId: '4b5c6d7e-8f9a-4b0c-9d1e-2f3a4b5c6d7e',
  fileId: '6c7d8e9f-0a1b-4c2d-9e3f-4a5b6c7d8e9f',
} as const;

const schemaBase = 'https://dss.example.com/schemas/core';
const token = 'eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl';
const PERMISSIONS = ['request_read', 'request_manage', 'manifest_manage', 'member_manage'];

export const session = { token, expiresAt: '2026-11-30T09:00:00.000Z' };

export const organization = { organizationId: ids.organizationId, name: 'Acme', createdAt: '2026-11-27T08:00:00.000Z' };

export const memberToken = {
  token,
  expiresAt: '2026-11-27T10:00:00.000Z',
  organizationId: ids.organizationId,
  permissions: PERMISSIONS,
};

export const member = { email: 'ops@acme.example', permissions: ['request_read', 'request_manage'], addedAt: '2026-11-27T08:05:00.000Z' };

export const app = { clientId: ids.clientId, name: 'Acme onboarding', registeredAt: '2026-11-27T08:10:00.000Z' };

/** Contract §13: an app that signs in people through the authorization server, with its public key. */
export const oauthApp = {
  clientId: ids.oauthClientId,
  name: 'Acme portal',
  registeredAt: '2026-11-27T08:12:00.000Z',
  redirectUris: ['https://portal.acme.example/oauth/callback'],
  jwks: {
    keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'q3S96EYJL87XNr9ifZ9qIcr4sXK_OrjXYA1JQC-5o4U', kid: 'portal-2026', alg: 'EdDSA', use: 'sig' }],
  },
};

const slotInput = {
  label: 'Name',
  group: 'Identity',
  multiple: false,
  kind: 'schema',
  target: 'PersonFullName',
  verbs: ['keep'],
  adoption: 'manual',
  required: true,
};

export const manifestVersionInput = {
  purpose: 'To open your account, we need to know who you are.',
  retention: 'P90D',
  slots: [slotInput],
};

export const manifestInput = { name: 'Customer onboarding', ...manifestVersionInput };

const slot = { slotId: ids.slotId, ...slotInput };

export const manifest = {
  manifestId: ids.manifestId,
  name: manifestInput.name,
  purpose: manifestInput.purpose,
  version: 1,
  retention: 'P90D',
  slots: [slot],
  publishedAt: '2026-11-27T08:20:00.000Z',
};

export const request = {
  requestId: ids.requestId,
  manifestId: ids.manifestId,
  manifestName: manifest.name,
  manifestVersion: 1,
  recipientEmail: 'ann@example.com',
  state: 'active',
  initiatedBy: 'org',
  invitationExpiresAt: '2026-12-11T08:30:00.000Z',
  createdAt: '2026-11-27T08:30:00.000Z',
};

export const adoption = {
  adoptionId: ids.adoptionId,
  slotId: ids.slotId,
  sourceResourceId: ids.resourceId,
  sourceVersion: 1,
  orgResourceId: ids.orgResourceId,
  orgVersion: 1,
  resourceType: 'document',
  state: 'materialized',
  adoptedAt: '2026-11-27T09:00:00.000Z',
  materializedAt: '2026-11-27T09:00:00.000Z',
  participant: null,
};

const proposalSummary = {
  proposalId: ids.proposalId,
  slotId: ids.slotId,
  resourceId: ids.resourceId,
  newVersion: 2,
  proposedAt: '2026-11-28T10:00:00.000Z',
  participant: null,
};

export const proposal = { ...proposalSummary, itemKind: 'schema', itemTarget: 'PersonFullName' };

export const requestDetail = {
  request,
  manifestName: manifest.name,
  items: [
    {
      ...slot,
      status: 'granted',
      records: [{ resourceId: ids.resourceId, participant: null, sourceVersion: 2, status: 'available' }],
    },
  ],
  adoptions: [adoption],
  proposals: [proposalSummary],
};

const fullName = { givenName: 'Ann', familyName: 'Example' };
const corrected = { givenName: 'Ann', familyName: 'Example-Smith' };

export const correction = {
  sourceResourceId: ids.resourceId,
  expectedSourceVersion: 1,
  expectedOrgVersion: 1,
  data: corrected,
};

export const copy = {
  adoption,
  resourceId: ids.orgResourceId,
  name: 'Name',
  schemaRef: `${schemaBase}/PersonFullName.json`,
  data: fullName,
  orgVersion: 1,
  origin: 'copy',
  currentOrgVersion: 2,
  currentOrigin: 'correction',
  currentData: corrected,
  participant: null,
};

export const candidate = {
  proposal,
  version: 2,
  name: 'Name',
  schemaRef: `${schemaBase}/PersonFullName.json`,
  data: { givenName: 'Ann', familyName: 'Example', middleName: 'Marie' },
};

export const orgFile = {
  orgFileId: ids.orgFileId,
  origin: 'copy',
  slotId: ids.fileSlotId,
  sourceResourceId: ids.fileId,
  participant: null,
  versions: [
    {
      orgVersion: 1,
      adoptionId: ids.adoptionId,
      sourceVersion: 1,
      fileName: 'passport.pdf',
      mimeType: 'application/pdf',
      fileSize: 48213,
      keptAt: '2026-11-27T09:05:00.000Z',
    },
  ],
};

export const historyEntry = {
  position: '1042/1042',
  type: 'CopyCorrected',
  occurredAt: '2026-11-27T09:10:00.000Z',
  actor: 'member:ops@acme.example',
  versions: { slotId: ids.slotId, resourceId: ids.resourceId, adoptionId: ids.adoptionId, sourceVersion: 1, orgVersion: 2 },
};

export const consentReceipt = {
  seq: 1,
  receiptId: '3f2a1b0c-9d8e-8f7a-b6c5-d4e3f2a1b0c9',
  issuedAt: '2026-11-27T09:00:00.000Z',
  event: 'RequestAccepted',
  status: 'dpv:ConsentGiven',
  jws: 'eyJhbGciOiJFZERTQSIsInR5cCI6ImNvbnNlbnQtcmVjZWlwdCtqd3QiLCJraWQiOiJjb25zZW50LXJlY2VpcHRzLTEifQ.eyJzZXEiOjF9.c2lnbmF0dXJl',
};

export const readinessChecks = {
  database: { status: 'ok' },
  events: { status: 'ok' },
  queue: { status: 'ok' },
  projections: { status: 'ok', lagSeconds: { requests: 0, copies: 0.4 } },
};

export const jwk = { kty: 'OKP', crv: 'Ed25519', kid: 'k1', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', alg: 'EdDSA', use: 'sig' };
