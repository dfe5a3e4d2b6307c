import { inParallel, type ServiceClient } from './service-client.js';

/** Slots of the bench's manifest, all asking for a PersonFullName: a granted document is this many keepable records. */
export const SLOTS = 20;
/** Setup calls in flight at once. */
export const SETUP_CONCURRENCY = 16;
const PROPOSALS_TIMEOUT_MS = 300_000;

export type Person = { readonly email: string; readonly token: string };

/** The organization under load: one member (its key warm since they signed in) and one manifest of SLOTS manual keep slots. */
export type Organization = {
  readonly organizationId: string;
  /** The owner's user token: signing in again with it warms the key (after a restart, say). */
  readonly ownerToken: string;
  readonly memberToken: string;
  readonly manifestId: string;
  readonly slotIds: readonly string[];
  /** The canonical URL of the PersonFullName schema, as the service names it. */
  readonly schemaRef: string;
};

/** A request to one person, accepted with one new document of theirs granted on every slot. */
export type GrantedUnit = { readonly requestId: string; readonly documentId: string; readonly person: Person };

/** One open proposal, decided by adopting it. */
export type OpenProposal = { readonly requestId: string; readonly proposalId: string };

export const personName = (givenName: string) => ({ givenName, familyName: 'Bench' });

export const UPDATE_DOCUMENT =
  'mutation($id: ID!, $i: DocumentUpdateInput!) { user { document { update(id: $id, input: $i) { version } } } }';
const CREATE_DOCUMENT = 'mutation($i: DocumentInput!) { user { document { create(input: $i) { id } } } }';
const ACCEPT = 'mutation($r: ID!, $g: [GrantInput!]!) { user { request { accept(requestId: $r, grants: $g) { requestId } } } }';

/**
 * Call this once every instance runs: signing in warms the key, and an instance counts only
 * sign-ins written after it started (key-warmth.ts).
 */
export async function benchOrganization(api: ServiceClient): Promise<Organization> {
  const owner = await api.person();
  const { organization } = await api.call<{ organization: { organizationId: string } }>('POST', '/org/v1/organizations', {
    token: owner.token,
    body: { name: 'Bench' },
  });
  const { organizationId } = organization;
  const memberToken = await signIn(api, organizationId, owner.token);
  const { manifestId, slotIds } = await nameManifest(api, memberToken, 'Bench', SLOTS, 'manual');
  const { schemas } = await api.call<{ schemas: Array<{ name: string; id: string }> }>('GET', '/schemas/core');
  const schemaRef = schemas.find((s) => s.name === 'PersonFullName')?.id;
  if (!schemaRef) throw new Error('the service lists no PersonFullName schema');
  return { organizationId, ownerToken: owner.token, memberToken, manifestId, slotIds, schemaRef };
}

/** A member's sign-in: their member token, and the organization's key warm on every instance running now. */
export async function signIn(api: ServiceClient, organizationId: string, userToken: string): Promise<string> {
  const { token } = await api.call<{ token: string }>('POST', '/org/v1/token', { token: userToken, body: { organizationId } });
  return token;
}

/** A manifest of `slots` keep slots, each asking for a PersonFullName and adopted as `adoption` says. */
export async function nameManifest(
  api: ServiceClient,
  memberToken: string,
  name: string,
  slots: number,
  adoption: 'manual' | 'auto',
): Promise<{ manifestId: string; slotIds: string[] }> {
  const slot = (i: number) => ({
    label: `Name ${i}`,
    group: name,
    multiple: false,
    kind: 'schema',
    target: 'PersonFullName',
    verbs: ['keep'],
    adoption,
  });
  const { manifest } = await api.call<{ manifest: { manifestId: string; slots: Array<{ slotId: string }> } }>('POST', '/org/v1/manifests', {
    token: memberToken,
    body: { name, purpose: 'To check who you are', retention: 'P30D', slots: Array.from({ length: slots }, (_, i) => slot(i)) },
  });
  return { manifestId: manifest.manifestId, slotIds: manifest.slots.map((s) => s.slotId) };
}

/**
 * Something each connection owns (a person, a document, a copy chain), made on first use and
 * kept for every later run, so a run at 64 connections makes only what the run at 16 did not.
 */
export class PerConnection<T> {
  private readonly made: T[] = [];
  /** Growing is serialized: two callers asking at once must not both make the same index. */
  private growing: Promise<void> = Promise.resolve();
  constructor(private readonly make: (index: number) => Promise<T>) {}

  async first(n: number): Promise<T[]> {
    this.growing = this.growing.then(async () => {
      const missing = Array.from({ length: Math.max(0, n - this.made.length) }, (_, i) => this.made.length + i);
      this.made.push(...(await inParallel(missing, SETUP_CONCURRENCY, (i) => this.make(i))));
    });
    await this.growing;
    return this.made.slice(0, n);
  }

  all(): readonly T[] {
    return this.made;
  }
}

export async function createDocument(api: ServiceClient, org: Organization, person: Person, givenName: string): Promise<string> {
  const r = await api.graphql<{ user: { document: { create: { id: string } } } }>(person.token, CREATE_DOCUMENT, {
    i: { name: 'Name', schemaRef: org.schemaRef, data: personName(givenName) },
  });
  return r.user.document.create.id;
}

export async function updateDocument(api: ServiceClient, person: Person, documentId: string, givenName: string): Promise<void> {
  await api.graphql(person.token, UPDATE_DOCUMENT, { id: documentId, i: { data: personName(givenName) } });
}

/**
 * `count` units for each person, answered per person in the order of `people`. A person's
 * documents are created one after the other (creates in one vault take turns on its index, and
 * parallel ones would clash); everything else runs in parallel.
 */
export async function grantedUnits(
  api: ServiceClient,
  org: Organization,
  people: readonly Person[],
  count: number,
): Promise<GrantedUnit[][]> {
  const documents = await inParallel(people, SETUP_CONCURRENCY, async (person) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await createDocument(api, org, person, 'Kept'));
    return ids;
  });
  const jobs = people.flatMap((person, p) => documents[p]!.map((documentId) => ({ person, documentId })));
  const units = await inParallel(jobs, SETUP_CONCURRENCY, ({ person, documentId }) => connect(api, org, person, documentId));
  return people.map((_, p) => units.slice(p * count, (p + 1) * count));
}

/** One request to `person`, accepted with a new document of theirs on every slot. */
export async function grantedUnit(api: ServiceClient, org: Organization, person: Person): Promise<GrantedUnit> {
  return connect(api, org, person, await createDocument(api, org, person, 'Kept'));
}

/** A request to the person, accepted with `documentId` granted on every slot. */
export async function connect(api: ServiceClient, org: Organization, person: Person, documentId: string): Promise<GrantedUnit> {
  const { request } = await api.call<{ request: { requestId: string } }>('POST', '/org/v1/requests', {
    token: org.memberToken,
    body: { manifestId: org.manifestId, recipientEmail: person.email },
  });
  await api.graphql(person.token, ACCEPT, {
    r: request.requestId,
    g: org.slotIds.map((slotId) => ({ slotId, resourceIds: [documentId] })),
  });
  return { requestId: request.requestId, documentId, person };
}

/**
 * The person publishes version 2 of each unit's document: on every manual slot it is granted on, a
 * proposal opens (asynchronously, by the copy workers). Answers each unit's open proposals once
 * all of them are visible on the proposals route.
 */
export async function openProposals(api: ServiceClient, org: Organization, units: readonly GrantedUnit[]): Promise<OpenProposal[][]> {
  await inParallel(units, SETUP_CONCURRENCY, (u) => updateDocument(api, u.person, u.documentId, 'Proposed'));
  const deadline = Date.now() + PROPOSALS_TIMEOUT_MS;
  return inParallel(units, SETUP_CONCURRENCY, async (u) => {
    for (;;) {
      const { proposals } = await api.call<{ proposals: Array<{ proposalId: string }> }>(
        'GET',
        `/org/v1/requests/${u.requestId}/proposals`,
        { token: org.memberToken },
      );
      if (proposals.length === org.slotIds.length) return proposals.map((p) => ({ requestId: u.requestId, proposalId: p.proposalId }));
      if (Date.now() > deadline) throw new Error(`request ${u.requestId} shows ${proposals.length} of ${org.slotIds.length} proposals`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });
}

/** Keeps one slot of the unit (version 1): a copy the organization can correct. */
export async function keepOne(api: ServiceClient, org: Organization, unit: GrantedUnit, slotId: string): Promise<void> {
  await api.call('POST', `/org/v1/requests/${unit.requestId}/slots/${slotId}/adopt`, { token: org.memberToken });
}

/** The head (currentOrgVersion) of the copy chain of the unit's document on one slot. */
export async function copyHead(api: ServiceClient, org: Organization, unit: GrantedUnit, slotId: string): Promise<number> {
  const { copies } = await api.call<{ copies: Array<{ adoption: { slotId: string }; currentOrgVersion: number }> }>(
    'GET',
    `/org/v1/requests/${unit.requestId}/copies`,
    { token: org.memberToken },
  );
  const copy = copies.find((c) => c.adoption.slotId === slotId);
  if (!copy) throw new Error(`request ${unit.requestId} has no copy on slot ${slotId}`);
  return copy.currentOrgVersion;
}
