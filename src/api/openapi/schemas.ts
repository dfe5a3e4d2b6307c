import { TRANSITIONS } from '../../consent-receipts/receipt-payload.js';
import { ADOPTIONS, SLOT_KINDS, SLOT_VERBS } from '../../events/manifest-events.js';
import { PERMISSIONS } from '../../events/organization-events.js';
import {
  MAX_CLIENT_URL_LENGTH,
  MAX_IDP_CLIENT_ID,
  MAX_JWKS_BYTES,
  MAX_JWKS_KEYS,
  MAX_REDIRECT_URIS,
} from '../../organizations/app-metadata.js';
import { REQUEST_STATES } from '../../requests/request-status.js';
import { SERVICE_PROBLEMS } from '../problems.js';
import { refusals } from '../refusals.js';
import { feedEventSchema } from './event-schemas.js';
import { arrayOf, exactly, freeForm, ref, timestamp, uuid, type OpenApiObject, type SchemaName } from './shapes.js';

/** The codes a problem can carry: every refusal's (src/api/refusals.ts) and the service's own (src/api/problems.ts). */
const PROBLEM_CODES = [...Object.keys(refusals), ...Object.keys(SERVICE_PROBLEMS)];
const CHECKS = ['database', 'events', 'queue', 'projections'] as const;

const int = (minimum = 1, description?: string): OpenApiObject => ({
  type: 'integer',
  minimum,
  ...(description ? { description } : {}),
});
const string = (description?: string): OpenApiObject => ({ type: 'string', ...(description ? { description } : {}) });
const oneOf = (values: readonly string[], description?: string): OpenApiObject => ({
  type: 'string',
  enum: [...values],
  ...(description ? { description } : {}),
});

/** A membership's permissions, as every answer names them. */
export const permissionList: OpenApiObject = { type: 'array', uniqueItems: true, items: oneOf(PERMISSIONS) };

/** R-MAN-05: a slot of a manifest version, as the manifest and the request detail show it. */
const slotFields = {
  slotId: uuid(),
  label: string(),
  group: string(),
  subject: string('Only when the slot asks about a party other than the recipient'),
  multiple: { type: 'boolean' },
  kind: oneOf(SLOT_KINDS),
  target: string('A built-in schema’s name for kind schema; a free label for kind file'),
  verbs: arrayOf(oneOf(SLOT_VERBS)),
  adoption: oneOf(ADOPTIONS, 'manual: members keep copies; auto: the service keeps every version while the key is warm'),
  required: { type: 'boolean', description: 'Accepting the request needs a grant for this slot (§11)' },
};

/** Spec §4.3: the request detail's proposal summary; the proposals route adds the slot's kind and target. */
const proposalFields = {
  proposalId: uuid(),
  slotId: uuid(),
  resourceId: uuid('The granted resource that has a newer version'),
  newVersion: int(1, 'Always the newest version'),
  proposedAt: timestamp(),
  participant: ref('Participant'),
};

/** R-HIST-01: the versions an event involves, and the opaque ids naming whose they are (src/requests/history-entry.ts). */
const historyVersions = {
  manifestVersion: int(),
  sourceVersion: int(),
  orgVersion: int(),
  newVersion: int(),
  slotId: uuid(),
  resourceId: uuid(),
  orgResourceId: uuid(),
  adoptionId: uuid(),
  proposalId: uuid(),
  reason: string(),
};

const clientUrl = (description: string): OpenApiObject => ({
  type: 'string',
  format: 'uri',
  maxLength: MAX_CLIENT_URL_LENGTH,
  description,
});

/**
 * R-ORG-17: a public signing key of an app. `open`: as a request takes it, so that a private key's
 * members reach the check that asks for the public key alone, rather than the unknown-field one.
 */
export function appJwk(open: boolean): OpenApiObject {
  return {
    type: 'object',
    required: ['kty', 'kid'],
    properties: {
      kty: oneOf(['OKP', 'EC', 'RSA']),
      kid: { type: 'string', minLength: 1, maxLength: 200, description: 'Unique in the set' },
      crv: oneOf(['Ed25519', 'P-256'], 'Ed25519 with OKP, P-256 with EC; none with RSA'),
      x: string(),
      y: string('EC only'),
      n: string('RSA only: a modulus of at least 2048 bits'),
      e: string('RSA only'),
      alg: oneOf(['EdDSA', 'Ed25519', 'ES256', 'PS256'], 'When given: EdDSA or Ed25519 with OKP, ES256 with EC, PS256 with RSA'),
      use: { const: 'sig' },
    },
    additionalProperties: open,
    ...(open ? { description: 'A public key only: any other member, a private key’s (d, p, q, dp, dq, qi, k) above all, is refused' } : {}),
  };
}

/** The app's client metadata an answer shows only when set. */
export const APP_CLIENT_FIELDS = ['redirectUris', 'jwks', 'jwksUri', 'identityProvider'];

/** Contract §13 (R-ORG-16, R-ORG-17, R-ORG-19): an app's OAuth client metadata, as POST /org/v1/apps takes it and answers show it. */
export const appClientFields = (jwk: OpenApiObject): Record<string, OpenApiObject> => ({
  redirectUris: {
    type: 'array',
    minItems: 1,
    maxItems: MAX_REDIRECT_URIS,
    uniqueItems: true,
    items: clientUrl(
      'https, no fragment, no user or password; http only on 127.0.0.1, [::1] or localhost, ' +
        'where the service allows it (OAUTH_ALLOW_LOOPBACK_HTTP)',
    ),
    description: 'Where the authorization server may send the person back; an app with them is an OAuth client, with jwks or jwksUri',
  },
  jwks: {
    type: 'object',
    required: ['keys'],
    properties: { keys: { type: 'array', minItems: 1, maxItems: MAX_JWKS_KEYS, items: jwk } },
    additionalProperties: false,
    description: `The app’s public keys for private_key_jwt, at most ${MAX_JWKS_BYTES / 1024} KiB of JSON; never with jwksUri`,
  },
  jwksUri: clientUrl('Where the app publishes its public keys for private_key_jwt: https; never with jwks'),
  identityProvider: {
    type: 'object',
    required: ['issuer', 'clientId'],
    properties: {
      issuer: clientUrl(
        'The OpenID Connect issuer: https, no query (loopback http where the service allows it); its discovery document is read at sign-in',
      ),
      clientId: { type: 'string', minLength: 1, maxLength: MAX_IDP_CLIENT_ID, description: 'The service’s client id at that provider' },
    },
    additionalProperties: false,
    description:
      'The organization’s own OpenID Connect provider: the consent page offers “Continue with <organization>”. Register the service ' +
      'there as a confidential client with private_key_jwt (its keys at /oauth/partner-sign-in/jwks) and the redirect URI ' +
      '{BASE_URL}/oauth/partner-sign-in/callback (docs/oauth.md)',
  },
});

const schemaRef: OpenApiObject = {
  type: ['string', 'null'],
  format: 'uri',
  description: 'The canonical URL of the built-in schema, `{schema_base}/core/<Name>.json`; null for a file',
};

/** The shared shapes of the REST API (service spec §2, contract §2 to §12), each named for a generated client. */
export const schemas: Readonly<Record<SchemaName, OpenApiObject>> = {
  /** RFC 9457 as sendProblem writes it: the five members the contract fixes, the request id, and extensions. */
  Problem: {
    type: 'object',
    description: 'An RFC 9457 problem; extension members may ride beside these.',
    required: ['type', 'title', 'status', 'detail', 'code'],
    properties: {
      type: {
        type: 'string',
        format: 'uri',
        description: 'The kind of problem: the base URL, /problems/, the code; a page that says what it means and how to fix it.',
      },
      title: string(),
      status: { type: 'integer', minimum: 400, maximum: 599 },
      detail: string(),
      code: oneOf(PROBLEM_CODES),
      requestId: string('The X-Request-Id of this request, to quote when reporting it.'),
      checks: { ...ref('ReadinessChecks'), description: 'GET /readyz only: each check and its status.' },
    },
  },
  ReadinessChecks: exactly(Object.fromEntries(CHECKS.map((name) => [name, ref('ReadinessCheck')]))),
  ReadinessCheck: exactly(
    {
      status: oneOf(['ok', 'failed']),
      reason: oneOf(['unreachable', 'timeout', 'behind', 'stalled'], 'Only when failed: a word, never error text'),
      lagSeconds: {
        type: 'object',
        description: 'The projections check: each projector’s lag behind the log, in seconds',
        additionalProperties: { type: 'number', minimum: 0 },
      },
      stalled: {
        type: 'object',
        description: 'Reason stalled: each projector stopped on an event it cannot apply',
        additionalProperties: exactly({ status: { const: 'stalled' }, position: string(), errorClass: string(), since: timestamp() }),
      },
    },
    ['reason', 'lagSeconds', 'stalled'],
  ),
  Jwk: exactly({
    kty: { const: 'OKP' },
    crv: { const: 'Ed25519' },
    kid: string(),
    x: string('The public key, base64url'),
    alg: { const: 'EdDSA' },
    use: { const: 'sig' },
  }),
  Organization: exactly({ organizationId: uuid(), name: string(), createdAt: timestamp() }),
  Membership: exactly({ organizationId: uuid(), name: string(), permissions: permissionList, joinedAt: timestamp() }),
  MemberToken: exactly(
    {
      token: string('The member token; absent when the call came with the session cookie (§11), which now holds it'),
      expiresAt: timestamp(),
      organizationId: uuid(),
      permissions: permissionList,
    },
    ['token'],
  ),
  Member: exactly({ email: { type: 'string', format: 'email' }, permissions: permissionList, addedAt: timestamp() }),
  App: exactly({ clientId: uuid(), name: string(), registeredAt: timestamp(), ...appClientFields(appJwk(false)) }, APP_CLIENT_FIELDS),
  KeyState: {
    description: 'Warm while a member signed in lately (keeps and corrections go through); cold once sealed or timed out.',
    oneOf: [exactly({ state: { const: 'warm' }, warmUntil: timestamp() }), exactly({ state: { const: 'cold' } })],
  },
  Slot: exactly(slotFields, ['subject']),
  Manifest: exactly({
    manifestId: uuid(),
    name: string(),
    purpose: string('Why the organization asks (§11); empty on a version published before purposes'),
    version: int(),
    retention: { type: 'string', format: 'duration', description: 'An ISO 8601 duration such as P90D' },
    slots: arrayOf(ref('Slot')),
    publishedAt: timestamp(),
  }),
  Request: exactly(
    {
      requestId: uuid(),
      manifestId: uuid(),
      manifestName: string(),
      manifestVersion: int(1, 'Pinned at consent: re-publishing a manifest never widens a live connection'),
      recipientEmail: { type: 'string', format: 'email', description: 'Normalized' },
      state: oneOf(REQUEST_STATES, 'Evaluated at call time'),
      initiatedBy: oneOf(['org', 'recipient']),
      initiatingClientId: string('The app a person came through; only when initiatedBy is recipient'),
      invitationExpiresAt: timestamp(),
      createdAt: timestamp(),
    },
    ['initiatingClientId'],
  ),
  Participant: {
    type: ['object', 'null'],
    description: 'The party a record is about; null is the recipient’s own record. The alias is pairwise per organization.',
    required: ['subjectId', 'type', 'alias'],
    properties: { subjectId: string(), type: { const: 'legal_entity' }, alias: string() },
    additionalProperties: false,
  },
  RecordEntry: exactly(
    {
      resourceId: uuid('The person’s (or company’s) resource'),
      participant: ref('Participant'),
      sourceVersion: int(1, 'Where the resource stands now; only while available'),
      status: oneOf(['available', 'unavailable']),
      reason: oneOf(['connection_inactive', 'participant_ineligible', 'source_unavailable'], 'Only while unavailable'),
    },
    ['sourceVersion', 'reason'],
  ),
  Item: exactly({ ...slotFields, status: oneOf(['granted', 'pending']), records: arrayOf(ref('RecordEntry')) }, ['subject']),
  RequestDetail: exactly({
    request: ref('Request'),
    manifestName: string(),
    items: arrayOf(ref('Item')),
    adoptions: arrayOf(ref('Adoption'), 'Pending ones too'),
    proposals: arrayOf(ref('ProposalSummary'), 'The open ones'),
  }),
  Adoption: exactly(
    {
      adoptionId: uuid(),
      slotId: uuid(),
      sourceResourceId: uuid('The person’s record'),
      sourceVersion: int(1, 'The source version this adoption pinned'),
      orgResourceId: uuid('The organization’s copy; absent while pending'),
      orgVersion: int(1, 'The version in the organization’s copy chain; absent while pending'),
      resourceType: oneOf(['document', 'file']),
      state: oneOf(['pending', 'materialized']),
      adoptedAt: timestamp(),
      materializedAt: timestamp('Absent while pending'),
      participant: ref('Participant'),
    },
    ['orgResourceId', 'orgVersion', 'materializedAt'],
  ),
  Skipped: exactly({
    resourceId: uuid(),
    participant: ref('Participant'),
    reason: oneOf(['connection_inactive', 'participant_ineligible', 'source_unavailable']),
    message: string(),
  }),
  Copy: exactly(
    {
      adoption: ref('Adoption'),
      resourceId: uuid('The organization’s own copy'),
      name: string(),
      schemaRef,
      data: freeForm('the copy as kept (the version the adoption pinned); for a file its label, fileName, mimeType and fileSize'),
      orgVersion: int(),
      origin: { const: 'copy' },
      currentOrgVersion: int(1, 'The head of the chain: the next expectedOrgVersion of a correction'),
      currentOrigin: oneOf(['copy', 'correction']),
      currentData: freeForm('the head of the chain, what the organization uses today; absent for a file'),
      participant: ref('Participant'),
    },
    ['currentData'],
  ),
  OrgFileVersion: exactly(
    {
      orgVersion: int(),
      adoptionId: uuid('A kept version’s adoption'),
      sourceVersion: int(1, 'A kept version’s source version'),
      fileName: string(),
      mimeType: string(),
      fileSize: int(0, 'Bytes'),
      keptAt: timestamp(),
    },
    ['adoptionId', 'sourceVersion'],
  ),
  OrgFile: exactly(
    {
      orgFileId: uuid(),
      origin: oneOf(['copy', 'attachment']),
      slotId: uuid('A kept file’s slot'),
      sourceResourceId: uuid('A kept file’s source'),
      participant: ref('Participant'),
      versions: arrayOf(ref('OrgFileVersion'), 'Newest first'),
    },
    ['slotId', 'sourceResourceId', 'participant'],
  ),
  ProposalSummary: exactly(proposalFields),
  Proposal: exactly({ ...proposalFields, itemKind: oneOf(SLOT_KINDS), itemTarget: string() }),
  Candidate: exactly({
    proposal: ref('Proposal'),
    version: int(),
    name: string(),
    schemaRef,
    data: freeForm('the proposed version, read from the person’s vault; for a file its label, fileName, mimeType and fileSize'),
  }),
  HistoryEntry: exactly({
    position: { type: 'string', pattern: '^[0-9]{1,20}/[0-9]{1,20}$', description: 'Where the event stands in the log' },
    type: string('The event’s type'),
    occurredAt: timestamp(),
    actor: { type: 'string', pattern: '^(member:.+|recipient|system)$', description: '"member:<email>", "recipient" or "system"' },
    versions: exactly(historyVersions, Object.keys(historyVersions)),
  }),
  ConsentReceipt: exactly({
    seq: { type: 'integer', minimum: 1, description: 'Its place in the request’s chain, from 1' },
    receiptId: uuid(),
    issuedAt: timestamp(),
    event: oneOf(Object.keys(TRANSITIONS), 'The request event that caused it'),
    status: string('The consent’s state after it, a W3C DPV term (dss:ConsentSuspended for a pause)'),
    jws: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
      description: 'The compact JWS, typ consent-receipt+jwt',
    },
  }),
  FileVersion: exactly({ fileId: uuid(), version: int() }),
  GraphqlError: exactly(
    {
      message: string(),
      locations: arrayOf(exactly({ line: int(), column: int() })),
      path: arrayOf({ type: ['string', 'integer'] }),
      extensions: {
        type: 'object',
        required: ['code'],
        properties: { code: string('BAD_USER_INPUT, UNAUTHENTICATED, NOT_FOUND, DATA_INVALID...') },
        additionalProperties: true,
        description: 'The code, and what the error adds (the failures of DATA_INVALID)',
      },
    },
    ['locations', 'path', 'extensions'],
  ),
  FeedEvent: feedEventSchema,
};
