import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Express } from 'express';
import { PERMISSIONS, type Permission } from '../../../src/events/organization-events.js';
import { formatPosition, positionFrom } from '../../../src/events/position.js';
import { loadKeys, generateMasterKey, generatePrivateJwk, serializeJwkSet } from '../../../src/identity/keys/index.js';
import { TokenIssuer } from '../../../src/identity/tokens/index.js';
import { attackerEd25519, b64, ed25519, forge, hs256 } from '../../identity/tokens/forge.js';
import { openWorkerQueue, startWorkers } from '../../support/copy-workers.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { fileClient } from '../files/file-client.js';
import { claimsOf, orgClient, type OrgClient } from '../org/org-client.js';
import { consentScenario } from '../support/consent-scenario.js';
import { registeredRoutes, type RegisteredRoute } from '../support/registered-routes.js';
import { startTestService, type TestService } from '../support/service.js';

/** What one side owns: every id a route or a GraphQL field can name, all of that side's own. */
export type Ids = {
  readonly organizationId: string;
  readonly manifestId: string;
  readonly requestId: string;
  readonly slotId: string;
  readonly adoptionId: string;
  readonly proposalId: string;
  /** A member of the organization a member route may change or remove. */
  readonly email: string;
  readonly fileId: string;
  readonly entityId: string;
  readonly documentId: string;
  readonly sessionId: string;
  /** The organization's webhook, and an event id (no delivery of it: a retry of it is 404 past the guard). */
  readonly webhookId: string;
  readonly eventId: string;
};

/** One side: a person who founded an organization, with a user and a member token of a live session. */
export type Side = { readonly email: string; readonly user: string; readonly member: string; readonly ids: Ids };

export type Person = { readonly email: string; readonly token: string; readonly ids: Ids };

/** A token that must be refused whatever route it reaches, named for the assertion messages. */
export type BadToken = { readonly name: string; readonly token: string | undefined };

export type AccessWorld = {
  readonly service: TestService;
  /** Every route express serves, walked from the app itself. */
  readonly routes: readonly RegisteredRoute[];
  readonly api: OrgClient;
  readonly acme: Side;
  readonly rival: Side;
  /** Refused on every route of its audience: none, garbage, forged, expired, revoked, wrong issuer. */
  readonly refusedUser: readonly BadToken[];
  readonly refusedMember: readonly BadToken[];
  /** A member token of Acme issued before its member was removed. */
  readonly removedMember: string;
  /** A member token of Acme issued before its member was removed and then added again. */
  readonly readdedMember: string;
  /** Acme member tokens lacking exactly one permission, and holding only that one. */
  readonly lacking: ReadonlyMap<Permission, string>;
  readonly holdingOnly: ReadonlyMap<Permission, string>;
  /** A logged-in user who never called user.register. */
  readonly unregistered: string;
  /** Users of Acme's founder's legal entity: a MEMBER, and a MANAGER since removed from it. */
  readonly entityMember: string;
  readonly removedFromEntity: string;
  /** The people each side's request went to, with what they own (their request, document, file, entity, session). */
  readonly people: { readonly acme: Person; readonly rival: Person };
  /** Position of the log's head, 'empty' before any event. */
  head(): Promise<string>;
  /**
   * The events appended after `head` that the HTTP request `requestId` (its X-Request-Id) caused:
   * a refused call must cause none. Background work of the world's setup (consent receipts,
   * reactions) may append meanwhile; its events have causes of their own.
   */
  appendedBy(head: string, requestId: string | null): Promise<string[]>;
  close(): Promise<void>;
};

const slots = [
  { label: 'Name', group: 'KYC', multiple: false, kind: 'schema', target: 'PersonFullName', verbs: ['keep'], adoption: 'manual' },
  { label: 'Passport', group: 'KYC', multiple: false, kind: 'file', target: 'PassportScan', verbs: ['keep'], adoption: 'manual' },
];
const NAME_V1 = { givenName: 'Pat', familyName: 'Doe' };
const NAME_V2 = { givenName: 'Pat', familyName: 'Doe-Smith' };
const HOUR = 3600_000;
const SCHEMA_BASE = 'http://service.test/schemas/core';

/**
 * The fixtures of the access matrix, made once: two organizations (Acme, Rival), each founded by
 * a person with a file, a legal entity and a document, and Acme's request to a person who
 * granted a document and a file, kept by Acme and then edited (an open proposal). The service
 * signs with a key this suite holds, so expired and forged tokens carry real subjects and sessions.
 */
export async function accessWorld(): Promise<AccessWorld> {
  const jwk = await generatePrivateJwk();
  const env = { JWT_PRIVATE_KEY: serializeJwkSet([jwk]), MASTER_KEY: generateMasterKey().toString('base64') };
  const keys = await loadKeys({
    production: false,
    dataDir: '/nonexistent',
    jwtPrivateKey: env.JWT_PRIVATE_KEY,
    masterKey: env.MASTER_KEY,
  });
  const mailer = new RecordingMailer();
  let app: Express | undefined;
  // The service's clock: moved on once, so that a membership provably starts after a token was issued.
  let offset = 0;
  const service = await startTestService({
    domain: { mailer, env, now: () => new Date(Date.now() + offset) },
    routes: (a) => {
      app = a;
    },
  });
  // The reactors open the proposals; they stop once both have, so no call but the matrix's writes.
  const queue = await openWorkerQueue(service);
  const workers = await startWorkers(service, queue);
  const api = orgClient(service.url, mailer);
  const files = fileClient(service.url);
  let acmeMember = '';
  const calls = consentScenario(api, () => acmeMember);
  const gqlOk = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
    calls.ok((await api.post('/graphql', token, { query, variables })).body);

  const upload = async (token: string, owner: Record<string, string> = {}): Promise<string> => {
    const r = await files.upload(token, { fileName: 'scan.pdf', label: 'Scan', ...owner }, Buffer.from('%PDF-1.4 scan'));
    expect(r.status, JSON.stringify(r.json)).to.equal(201);
    return r.json.fileId as string;
  };
  const entity = async (token: string) =>
    (await gqlOk(token, 'mutation { user { entity { create(name: "Holding") { entityId } } } }')).user.entity.create.entityId as string;
  const sessionOf = (token: string) => String(claimsOf(token).sid);
  const member = async (organizationId: string, owner: string, permissions: readonly string[]) => {
    const who = await api.user();
    const put = await api.put(`/org/v1/members/${who.email}`, owner, { permissions });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    return { email: who.email, user: who.token, member: await api.signIn(who.token, organizationId) };
  };

  async function side(name: string, recipient: string): Promise<Side & { person: Person }> {
    const founder = await api.user();
    const organizationId = await api.organization(founder.token, name);
    const memberToken = await api.signIn(founder.token, organizationId);
    const m = await api.post('/org/v1/manifests', memberToken, { name: 'KYC', purpose: 'To check who you are', retention: 'P30D', slots });
    expect(m.status, JSON.stringify(m.body)).to.equal(201);
    const manifest = m.body.manifest as { manifestId: string; slots: Array<{ slotId: string }> };
    const [nameSlot, fileSlot] = manifest.slots.map((s) => s.slotId) as [string, string];
    const bystander = await member(organizationId, memberToken, ['request_read']);
    const entityId = await entity(founder.token);
    // The founder's document and file belong to the legal entity, so entity roles decide who may touch them.
    const documentId = (
      await gqlOk(founder.token, 'mutation($i: DocumentInput!) { user { document { create(input: $i) { id } } } }', {
        i: { name: 'Name', schemaRef: `${SCHEMA_BASE}/PersonFullName.json`, data: NAME_V1, owner: entityId },
      })
    ).user.document.create.id as string;

    const person = await api.user({ email: recipient });
    const personEntity = await entity(person.token);
    const personDoc = await calls.createDoc(person, 'PersonFullName', NAME_V1);
    const personFile = await upload(person.token);
    acmeMember = memberToken;
    const requestId = await calls.connected(manifest.manifestId, person, { [nameSlot]: [personDoc], [fileSlot]: [personFile] });
    const kept = (await calls.keep(requestId, nameSlot)).adoptions as Array<{ adoptionId: string }>;
    await calls.keep(requestId, fileSlot);
    await calls.updateDoc(person, personDoc, NAME_V2);
    let proposals: Array<{ proposalId: string }> = [];
    for (let i = 0; i < 200 && proposals.length === 0; i++) {
      proposals = (await api.get(`/org/v1/requests/${requestId}/proposals`, memberToken)).body.proposals as typeof proposals;
      if (proposals.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    expect(proposals, 'a proposal opens').to.have.length(1);
    const hook = await api.post('/org/v1/webhooks', memberToken, {
      url: `https://hooks.${name.toLowerCase()}.example/`,
      eventTypes: ['key.warmed'],
    });
    expect(hook.status, JSON.stringify(hook.body)).to.equal(201);

    const ids: Ids = {
      organizationId,
      manifestId: manifest.manifestId,
      requestId,
      slotId: nameSlot,
      adoptionId: kept[0]!.adoptionId,
      proposalId: proposals[0]!.proposalId,
      email: bystander.email,
      fileId: await upload(founder.token, { owner: entityId }),
      entityId,
      documentId,
      sessionId: sessionOf(founder.token),
      webhookId: (hook.body.webhook as { webhookId: string }).webhookId,
      eventId: randomUUID(),
    };
    const personIds: Ids = {
      ...ids,
      fileId: personFile,
      entityId: personEntity,
      documentId: personDoc,
      sessionId: sessionOf(person.token),
    };
    return { email: founder.email, user: founder.token, member: memberToken, ids, person: { ...person, ids: personIds } };
  }

  const acme = await side('Acme', 'pat@example.com');
  const rival = await side('Rival', 'rae@example.com');
  await workers.stop();
  await queue.close();

  // Sessions that end: a second login of Acme's founder, signed in to Acme, then revoked from the first.
  const second = await api.user({ email: acme.email });
  const revokedMember = await api.signIn(second.token, acme.ids.organizationId);
  await gqlOk(acme.user, 'mutation($s: ID!) { user { security { revokeSession(sessionId: $s) } } }', { s: sessionOf(second.token) });

  const removed = await member(acme.ids.organizationId, acme.member, [...PERMISSIONS]);
  expect((await api.del(`/org/v1/members/${removed.email}`, acme.member)).status).to.equal(200);
  const readded = await member(acme.ids.organizationId, acme.member, [...PERMISSIONS]);
  expect((await api.del(`/org/v1/members/${readded.email}`, acme.member)).status).to.equal(200);
  offset += 60_000;
  expect((await api.put(`/org/v1/members/${readded.email}`, acme.member, { permissions: [...PERMISSIONS] })).status).to.equal(200);

  const setRole = (email: string, role: string) =>
    gqlOk(
      acme.user,
      'mutation($e: ID!, $m: String!, $r: EntityRole!) { user { entity { setMember(entityId: $e, email: $m, role: $r) { entityId } } } }',
      {
        e: acme.ids.entityId,
        m: email,
        r: role,
      },
    );
  const entityMember = await api.user();
  await setRole(entityMember.email, 'MEMBER');
  const exManager = await api.user();
  await setRole(exManager.email, 'MANAGER');
  await gqlOk(acme.user, 'mutation($e: ID!, $m: String!) { user { entity { removeMember(entityId: $e, email: $m) { entityId } } } }', {
    e: acme.ids.entityId,
    m: exManager.email,
  });

  const lacking = new Map<Permission, string>();
  const holdingOnly = new Map<Permission, string>();
  for (const p of PERMISSIONS) {
    lacking.set(
      p,
      (
        await member(
          acme.ids.organizationId,
          acme.member,
          PERMISSIONS.filter((q) => q !== p),
        )
      ).member,
    );
    holdingOnly.set(p, (await member(acme.ids.organizationId, acme.member, [p])).member);
  }

  // Tokens of Acme's founder's live session, refused for how they were made.
  const past = new Date(Date.now() - 80 * HOUR);
  const expiredIssuer = new TokenIssuer({ issuer: 'http://service.test', signing: keys.signing, now: () => past });
  const foreignIssuer = new TokenIssuer({ issuer: 'http://elsewhere.test', signing: keys.signing });
  const claims = claimsOf(acme.member);
  const session = {
    identityId: String(claims.sub),
    sessionId: String(claims.sid),
    email: acme.email,
    expiresAt: new Date(past.getTime() + 72 * HOUR),
  };
  const live = { ...session, expiresAt: new Date(Date.now() + HOUR) };
  const orgOf = (s: typeof session) => ({
    ...s,
    organizationId: acme.ids.organizationId,
    permissions: [...PERMISSIONS],
    membership: String(claims.membership),
  });
  const attacker = attackerEd25519();
  const forged = async (token: string): Promise<BadToken[]> => {
    const header = { alg: 'EdDSA', typ: 'JWT', kid: jwk.kid };
    const payload = claimsOf(token);
    return [
      { name: 'alg none', token: `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.` },
      { name: 'HS256 keyed with our public key', token: await forge({ ...header, alg: 'HS256' }, payload, hs256(jwk.x)) },
      { name: 'another Ed25519 key under our kid', token: await forge(header, payload, ed25519(attacker.privateKey)) },
      { name: 'an unknown kid', token: await forge({ ...header, kid: 'not-ours' }, payload, ed25519(attacker.privateKey)) },
    ];
  };
  const common: BadToken[] = [
    { name: 'no token', token: undefined },
    { name: 'garbage', token: 'not-a-token' },
  ];
  const refusedUser: BadToken[] = [
    ...common,
    ...(await forged(acme.user)),
    { name: 'an expired token', token: await expiredIssuer.userToken(session) },
    { name: 'a token of another issuer', token: await foreignIssuer.userToken(live) },
    { name: 'a revoked session', token: second.token },
    { name: 'a member token', token: acme.member },
  ];
  const refusedMember: BadToken[] = [
    ...common,
    ...(await forged(acme.member)),
    { name: 'an expired token', token: await expiredIssuer.orgToken(orgOf(session)) },
    { name: 'a token of another issuer', token: await foreignIssuer.orgToken(orgOf(live)) },
    { name: 'a revoked session', token: revokedMember },
    { name: 'a user token', token: acme.user },
  ];

  const { person: pat, ...acmeSide } = acme;
  const { person: rae, ...rivalSide } = rival;
  return {
    service,
    routes: registeredRoutes(app!),
    api,
    acme: acmeSide,
    rival: rivalSide,
    refusedUser,
    refusedMember,
    removedMember: removed.member,
    readdedMember: readded.member,
    lacking,
    holdingOnly,
    unregistered: (await api.user({ register: false })).token,
    entityMember: entityMember.token,
    removedFromEntity: exManager.token,
    people: { acme: pat, rival: rae },
    head: async () => {
      const head = await service.store.headPosition();
      return head ? formatPosition(head) : 'empty';
    },
    appendedBy: async (head, requestId) => {
      const after = positionFrom(head);
      const appended = await service.store.readAll({ ...(after ? { after } : {}), maxCount: 1000 });
      // A call without a request id in its answer is held to the stricter test: nothing appended at all.
      return appended.filter((e) => requestId === null || e.metadata.causationId === requestId).map((e) => e.type);
    },
    close: () => service.close(),
  };
}
