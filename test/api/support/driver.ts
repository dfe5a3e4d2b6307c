import { expect } from 'chai';
import type { SqlDb } from '../../../src/db/sql.js';
import type { Reply } from '../../support/http.js';
import type { OrgClient } from '../org/org-client.js';

/**
 * The one driver of the HTTP suites: the calls a person makes through GraphQL and an organization
 * member through REST, written once, so that a test reads as the steps of the spec it checks; and
 * what a call appended to the log, named by event type, so that "nothing written" is asserted as
 * `expect(await appended(() => keep(...))).to.deep.equal([])` (Emmett's expectNewEvents) rather than
 * by counting rows.
 */

export type GqlError = {
  message: string;
  extensions: { code: string; errors?: Array<{ instancePath: string; keyword: string; message: string }> };
};
// GraphQL answers are data of the shape the query names; tests read them loosely.
export type Gql = { data?: Record<string, any> | null; errors?: GqlError[] };
export type User = { email: string; token: string };
export type Manifest = { manifestId: string; slots: Array<{ slotId: string }> };
export type Participant = null | { subjectId: string; type: string; alias: string };
export type Adoption = {
  adoptionId: string;
  slotId: string;
  sourceResourceId: string;
  sourceVersion: number;
  orgResourceId?: string;
  orgVersion?: number;
  resourceType: string;
  state: string;
  adoptedAt: string;
  materializedAt?: string;
  participant: Participant;
};
export type Copy = {
  adoption: Adoption;
  resourceId: string;
  name: string;
  schemaRef: string | null;
  data: Record<string, unknown>;
  orgVersion: number;
  origin: string;
  currentOrgVersion: number;
  currentOrigin: string;
  currentData?: Record<string, unknown>;
  participant: Participant;
};
export type Proposal = {
  proposalId: string;
  slotId: string;
  itemKind: string;
  itemTarget: string;
  resourceId: string;
  newVersion: number;
  proposedAt: string;
  participant: null | { alias: string; type: string };
};

/** The built-in schemas' base, as the service publishes them (BASE_URL http://service.test). */
export const CORE_SCHEMAS = 'http://service.test/schemas/core';
export const schemaRef = (name: string) => `${CORE_SCHEMAS}/${name}.json`;

/** The slot most scenarios ask for: the person's full name, kept by hand (no automatic keeps). */
export const MANUAL_NAME_SLOT = {
  label: 'Name',
  group: 'KYC',
  multiple: false,
  kind: 'schema',
  target: 'PersonFullName',
  verbs: ['keep'],
  adoption: 'manual',
} as const;

/** A file slot, kept by hand: a scan of the person's passport. */
export const PASSPORT_SLOT = {
  label: 'Passport',
  group: 'KYC',
  multiple: false,
  kind: 'file',
  target: 'PassportScan',
  verbs: ['keep'],
  adoption: 'manual',
} as const;

const CREATE_DOCUMENT = 'mutation($input: DocumentInput!) { user { document { create(input: $input) { id } } } }';
const UPDATE_DOCUMENT = 'mutation($id: ID!, $i: DocumentUpdateInput!) { user { document { update(id: $id, input: $i) { version } } } }';
const DELETE_DOCUMENT = 'mutation($id: ID!) { user { document { delete(id: $id) } } }';
const CREATE_ENTITY = 'mutation($n: String!) { user { entity { create(name: $n) { entityId } } } }';

// ---- The log: what a call appended ----

/**
 * A point in the log. Positions come from a sequence and commit out of order, so "above the highest
 * position" could miss a transaction in flight: the mark holds the oldest running transaction
 * (es.readable_below, as the store's readers use it) and the events it already sees from there on.
 * An event appended later belongs to a transaction at or above that bound and is not among them.
 */
export type LogMark = { readonly below: string; readonly seen: readonly string[] };
/** One event appended since a mark, in the log's order. */
export type Appended = { readonly type: string; readonly streamId: string; readonly data: Record<string, any> };
/** `about`: only the events whose stream id or data names this id (a request, a document, a vault). */
export type AppendedOptions = { readonly about?: string };

export async function logMark(db: SqlDb): Promise<LogMark> {
  const row = (
    await db.query<{ below: string; seen: string[] }>(
      `SELECT es.readable_below()::text AS below, coalesce(json_agg(event_id::text), '[]') AS seen
       FROM es.events WHERE transaction_id >= es.readable_below()`,
    )
  ).rows[0]!;
  return { below: row.below, seen: row.seen };
}

/** The events appended since `mark`: type, stream and data. */
export async function eventsSince(db: SqlDb, mark: LogMark, options: AppendedOptions = {}): Promise<Appended[]> {
  const about = options.about === undefined ? '' : 'AND (stream_id LIKE $3 OR data::text LIKE $3)';
  const rows = await db.query<{ type: string; stream_id: string; data: Record<string, any> }>(
    `SELECT type, stream_id, data FROM es.events
     WHERE transaction_id >= $1::xid8 AND event_id::text NOT IN (SELECT jsonb_array_elements_text($2::jsonb)) ${about}
     ORDER BY transaction_id, position`,
    [mark.below, JSON.stringify(mark.seen), ...(options.about === undefined ? [] : [`%${options.about}%`])],
  );
  return rows.rows.map((r) => ({ type: r.type, streamId: r.stream_id, data: r.data }));
}

/** The types of the events appended since `mark`, in the log's order. */
export async function appendedSince(db: SqlDb, mark: LogMark, options: AppendedOptions = {}): Promise<string[]> {
  return (await eventsSince(db, mark, options)).map((e) => e.type);
}

/** The types of the events appended while `during` ran: `[]` when it wrote nothing. */
export async function eventsAppended(db: SqlDb, during: () => Promise<unknown>, options: AppendedOptions = {}): Promise<string[]> {
  const mark = await logMark(db);
  await during();
  return appendedSince(db, mark, options);
}

// ---- The calls ----

export type DriverOptions = {
  /** The client of the suite's service; read at each call, as suites start it in before(). */
  readonly api: () => OrgClient;
  /** The member token the organization's calls carry unless told otherwise (`as`). */
  readonly member?: () => string;
  /** The database whose log `mark`, `appendedSince` and `appended` read. */
  readonly log?: () => SqlDb;
};

/** Which member token an organization call carries, when not the driver's member. */
type As = { readonly as?: string };

/**
 * The person's GraphQL calls and the organization's REST calls of a scenario. Every getter is read at
 * call time, so a suite makes its driver at describe scope and destructures the verbs it uses.
 */
export function driver(options: DriverOptions) {
  const member = (as?: string) => {
    const token = as ?? options.member?.();
    if (!token) throw new Error('this driver has no member token: pass member, or as');
    return token;
  };
  const log = () => {
    if (!options.log) throw new Error('this driver reads no log: pass log');
    return options.log();
  };

  const gql = async (u: User, query: string, variables: Record<string, unknown> = {}) =>
    (await options.api().post('/graphql', u.token, { query, variables })).body as Gql;
  /** The data of an answer that must have no errors; fails naming them. */
  const ok = (r: Gql) => {
    if (r.errors) expect.fail(JSON.stringify(r.errors));
    return r.data!;
  };
  /** The first error of an answer that must have one. */
  const errorOf = (r: Gql): GqlError => {
    if (!r.errors?.[0]) expect.fail(`expected an error, got ${JSON.stringify(r.data)}`);
    return r.errors[0];
  };
  /** The body of a reply that must be 200. */
  const expectOk = async (call: Promise<Reply>) => {
    const r = await call;
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body;
  };
  const expectStatus = (r: Reply, status: number) => {
    expect(r.status, JSON.stringify(r.body)).to.equal(status);
    return r.body;
  };
  const requestVerb = async (u: User, field: string, variables: Record<string, unknown>) => {
    const args = Object.keys(variables).map((k) => `$${k}: ${k === 'g' ? '[GrantInput!]!' : 'ID!'}`);
    return ok(await gql(u, `mutation(${args.join(', ')}) { user { request { ${field} { requestId } } } }`, variables));
  };
  /** A document of the person: `schema` names a built-in (the document named after it) with `data`, or the whole DocumentInput. */
  async function createDoc(u: User, schema: string, data: Record<string, unknown>): Promise<string>;
  async function createDoc(u: User, input: Record<string, unknown>): Promise<string>;
  async function createDoc(u: User, what: string | Record<string, unknown>, data?: Record<string, unknown>): Promise<string> {
    const input = typeof what === 'string' ? { name: what, schemaRef: schemaRef(what), data } : what;
    return ok(await gql(u, CREATE_DOCUMENT, { input })).user.document.create.id as string;
  }
  const path = (requestId: string, rest = '') => `/org/v1/requests/${requestId}${rest}`;

  const calls = {
    gql,
    ok,
    errorOf,
    expectOk,

    // The person, through GraphQL.
    createDoc,
    /** Publishes the next version; answers its number. */
    updateDoc: async (u: User, id: string, data: Record<string, unknown>): Promise<number> =>
      ok(await gql(u, UPDATE_DOCUMENT, { id, i: { data } })).user.document.update.version as number,
    deleteDoc: async (u: User, id: string): Promise<boolean> => ok(await gql(u, DELETE_DOCUMENT, { id })).user.document.delete as boolean,
    /** A legal entity the person creates, and so manages. */
    entity: async (u: User, name: string): Promise<string> => ok(await gql(u, CREATE_ENTITY, { n: name })).user.entity.create.entityId,
    /** Accepts a request with these grants (slot id → resource ids). */
    accept: (u: User, requestId: string, grants: Record<string, string[]>) =>
      requestVerb(u, 'accept(requestId: $r, grants: $g)', {
        r: requestId,
        g: Object.entries(grants).map(([slotId, resourceIds]) => ({ slotId, resourceIds })),
      }),
    revoke: (u: User, requestId: string) => requestVerb(u, 'revoke(requestId: $r)', { r: requestId }),
    suspend: (u: User, requestId: string) => requestVerb(u, 'suspend(requestId: $r)', { r: requestId }),
    resume: (u: User, requestId: string) => requestVerb(u, 'resume(requestId: $r)', { r: requestId }),
    withdraw: (u: User, requestId: string, slotId: string) =>
      requestVerb(u, 'withdraw(requestId: $r, slotId: $s)', { r: requestId, s: slotId }),

    // The organization's member, through REST.
    /** Publishes a manifest of these slots; answers it (201). */
    manifest: async (slots: readonly unknown[], retention = 'P30D', o: As & { name?: string } = {}): Promise<Manifest> =>
      expectStatus(
        await options
          .api()
          .post('/org/v1/manifests', member(o.as), { name: o.name ?? 'KYC', purpose: 'To check who you are', retention, slots }),
        201,
      ).manifest as Manifest,
    /** Sends a request of the manifest to the address; answers its id (201). */
    send: async (manifestId: string, recipientEmail: string, o: As = {}): Promise<string> =>
      (
        expectStatus(await options.api().post('/org/v1/requests', member(o.as), { manifestId, recipientEmail }), 201).request as {
          requestId: string;
        }
      ).requestId,
    /** Sent by the member to the person, accepted with these grants (slot id → resource ids): the request's id. */
    connected: async (manifestId: string, person: User, grants: Record<string, string[]>, o: As = {}): Promise<string> => {
      const requestId = await calls.send(manifestId, person.email, o);
      await calls.accept(person, requestId, grants);
      return requestId;
    },
    keep: (requestId: string, slotId: string, o: As & { body?: unknown } = {}) =>
      options.api().post(path(requestId, `/slots/${slotId}/adopt`), member(o.as), o.body),
    /** A keep that must succeed: its adoptions. */
    kept: async (requestId: string, slotId: string, o: As = {}) =>
      (await expectOk(calls.keep(requestId, slotId, o))).adoptions as Adoption[],
    correct: (requestId: string, slotId: string, body: Record<string, unknown>, o: As = {}) =>
      options.api().post(path(requestId, `/slots/${slotId}/correct`), member(o.as), body),
    drain: (requestId: string, o: As = {}) => options.api().post(path(requestId, '/adoptions/drain'), member(o.as)),
    detail: async (requestId: string, o: As = {}) => expectOk(options.api().get(path(requestId), member(o.as))),
    copies: async (requestId: string, o: As = {}) =>
      (await expectOk(options.api().get(path(requestId, '/copies'), member(o.as)))).copies as Copy[],
    proposals: async (requestId: string, o: As = {}) =>
      (await expectOk(options.api().get(path(requestId, '/proposals'), member(o.as)))).proposals as Proposal[],
    /** Waits for the reactor's proposal on the request, reads its candidate, then adopts it. */
    readAndAdoptProposal: async (requestId: string): Promise<void> => {
      let open: Proposal[] = [];
      for (let i = 0; i < 200 && open.length === 0; i++) {
        open = (await options.api().get(path(requestId, '/proposals'), member())).body.proposals as Proposal[];
        if (open.length === 0) await new Promise((r) => setTimeout(r, 50));
      }
      expect(open, 'a proposal opens').to.have.length(1);
      const { proposalId } = open[0]!;
      await expectOk(options.api().get(path(requestId, `/proposals/${proposalId}/candidate`), member()));
      await expectOk(options.api().post(path(requestId, `/proposals/${proposalId}/adopt`), member()));
    },

    // The log.
    mark: () => logMark(log()),
    eventsSince: (mark: LogMark, o: AppendedOptions = {}) => eventsSince(log(), mark, o),
    appendedSince: (mark: LogMark, o: AppendedOptions = {}) => appendedSince(log(), mark, o),
    /** The types of the events appended while `during` ran: `[]` when it wrote nothing. */
    appended: (during: () => Promise<unknown>, o: AppendedOptions = {}) => eventsAppended(log(), during, o),
  };
  return calls;
}

export type Driver = ReturnType<typeof driver>;

/**
 * The driver as the suites that script consent scenarios first used it: keep and correct must
 * succeed and answer the body.
 */
export function consentScenario(api: OrgClient, member: () => string) {
  const d = driver({ api: () => api, member });
  return {
    ...d,
    keep: (requestId: string, slotId: string) => d.expectOk(d.keep(requestId, slotId)),
    correct: (requestId: string, slotId: string, body: Record<string, unknown>) => d.expectOk(d.correct(requestId, slotId, body)),
  };
}
