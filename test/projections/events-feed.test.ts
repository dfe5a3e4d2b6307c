import { expect } from 'chai';
import fc from 'fast-check';
import type { Row, SqlExecutor } from '../../src/db/sql.js';
import type { ChainEvent } from '../../src/events/copy-events.js';
import { FEED_EVENT_ID } from '../../src/events-feed/events-feed.js';
import type { DocumentUpdated } from '../../src/events/document-events.js';
import type { FileVersionAdded } from '../../src/events/file-events.js';
import type { GrantedRecord, RequestEvent, RequestSent } from '../../src/events/request-events.js';
import { eventsFeedProjector } from '../../src/projections/events-feed/events-feed.js';
import type { Statement } from '../../src/projections/projector.js';
import { installReadModels } from '../../src/projections/read-model-schema.js';
import { openTestDatabase } from '../support/databases.js';
import { planOf } from '../support/plans.js';
import { at, minute, positionOf, projectorSpecs, recorded, uuid, type GivenEvent } from '../support/projector-spec.js';

const [acme, globex] = [uuid(1), uuid(2)];
const [request, other, third] = [uuid(10), uuid(11), uuid(12)];
const [nameSlot, companySlot] = [uuid(20), uuid(21)];
const [name, company, passport] = [uuid(30), uuid(31), uuid(32)];
const alphaGmbh = uuid(40);
const [adoption, proposal] = [uuid(50), uuid(60)];

const sent = (requestId = request, organizationId = acme): RequestSent => ({
  type: 'RequestSent',
  data: {
    requestId,
    organizationId,
    manifestId: uuid(5),
    manifestVersion: 1,
    recipientEmail: 'ann@example.com',
    invitationExpiresAt: '2026-12-08T00:00:00.000Z',
    initiatedBy: 'org',
    initiatingClientId: null,
  },
});
/** Accepted at the default clock's start, for 30 days. */
const accepted = (requestId = request): RequestEvent => ({
  type: 'RequestAccepted',
  data: { requestId, retention: 'P30D', retentionMs: 2_592_000_000, acceptedAt: minute(0) },
});
const moved = (
  type: 'RequestRejected' | 'RequestCancelled' | 'RequestRevoked' | 'RequestSuspended' | 'RequestResumed',
  requestId = request,
): RequestEvent => ({ type, data: { requestId } });
const own = (resourceId: string): GrantedRecord => ({ resourceId, entityId: null });
const ofEntity = (resourceId: string): GrantedRecord => ({ resourceId, entityId: alphaGmbh });
const granted = (slotId: string, records: GrantedRecord[], requestId = request): RequestEvent => ({
  type: 'SlotGranted',
  data: { requestId, slotId, records },
});
const withdrawn = (slotId: string, requestId = request): RequestEvent => ({ type: 'SlotWithdrawn', data: { requestId, slotId } });
const updated = (resourceId: string, version: number): DocumentUpdated => ({
  type: 'DocumentUpdated',
  data: { resourceId, vaultId: uuid(90), name: 'Ann Example', description: 'private', version, sealedData: 'c2VhbGVk' },
});
const fileVersion = (resourceId: string, version: number): FileVersionAdded => ({
  type: 'FileVersionAdded',
  data: {
    resourceId,
    vaultId: uuid(90),
    version,
    blobId: uuid(91),
    fileName: 'ann.pdf',
    mimeType: 'application/pdf',
    fileSize: 9,
    label: null,
  },
});
const participant = { subjectId: 'company', type: 'legal_entity' as const, alias: 'p_alias' };
const kept = (orgVersion: number, sourceVersion: number): ChainEvent => ({
  type: 'CopyKept',
  data: {
    adoptionId: adoption,
    requestId: request,
    organizationId: acme,
    slotId: companySlot,
    sourceResourceId: company,
    sourceVersion,
    orgResourceId: uuid(70),
    orgVersion,
    resourceType: 'document',
    participant,
    adoptedAt: minute(5),
    materializedAt: minute(5),
    name: 'Alpha GmbH',
    schemaRef: null,
    sealedData: 'c2VhbGVk',
    file: null,
  },
});

/** The feed as a consumer reads it: in log order, without the row's source event id (random in a spec). */
const feed = `SELECT commit_pos::text AS commit, prepare_pos::text AS prepare, ordinal, type, organization_id, request_id, slot_id,
                     resource_id, entity_id, adoption_id, proposal_id, source_version, org_version
              FROM events_feed ORDER BY commit_pos, prepare_pos, ordinal`;
const types = 'SELECT type, organization_id, request_id FROM events_feed ORDER BY commit_pos, prepare_pos, ordinal';
const updates = `SELECT commit_pos::text AS commit, ordinal, organization_id, request_id, slot_id, resource_id, entity_id, source_version
                 FROM events_feed WHERE type = 'record.updated' ORDER BY commit_pos, prepare_pos, ordinal`;

/** A feed row of the n-th event given, with what it names (absent is null). */
const row = (n: number, type: string, names: Record<string, unknown> = {}, ordinal = 0) => ({
  commit: positionOf(n).commit.toString(),
  prepare: positionOf(n).prepare.toString(),
  ordinal,
  type,
  organization_id: acme,
  request_id: request,
  slot_id: null,
  resource_id: null,
  entity_id: null,
  adoption_id: null,
  proposal_id: null,
  source_version: null,
  org_version: null,
  ...names,
});

/** A gathered statement's parameters (each an array of a column's values) as PostgreSQL array literals, for planOf. */
const arrayLiterals = (values: readonly unknown[]): string[] =>
  values.map((column) => `{${(column as (string | number | boolean | null)[]).map((v) => (v === null ? 'NULL' : `"${v}"`)).join(',')}}`);

/**
 * The generic plan, on empty tables, of the first statement the set-based form sends for `events`
 * (of `statements` in all): the plan PostgreSQL would keep while a replay's tables grow.
 */
async function firstPlanOf(events: readonly GivenEvent[], statements: number): Promise<string> {
  const t = await openTestDatabase();
  try {
    await installReadModels(t.db, [eventsFeedProjector], 'rm');
    const sent: Statement[] = [];
    const recording: SqlExecutor = {
      query: <R extends Row = Row>(text: string, values: readonly unknown[] = []) => {
        sent.push([text, values]);
        return Promise.resolve({ rows: [] as R[], rowCount: 0 });
      },
    };
    await eventsFeedProjector.onBatch!(recording, recorded(eventsFeedProjector, events));
    expect(sent).to.have.length(statements);
    const [[text, values]] = sent as [Statement];
    return await planOf(t.db, text, arrayLiterals(values), { generic: true, schema: 'rm' });
  } finally {
    await t.drop();
  }
}

describe('events feed read model: the catalogue’s thin events of each organization, in log order (contract §12)', () => {
  const given = projectorSpecs();

  it('RequestSent gives request.sent in the sending organization’s feed, at the event’s place in the log; the address is stored nowhere', () =>
    given(eventsFeedProjector, at('2026-12-01T09:00:00.000Z', sent()))
      .thenRows(feed, [row(0, 'request.sent')])
      .thenRows('SELECT occurred_at FROM events_feed', [{ occurred_at: '2026-12-01T09:00:00.000Z' }])
      .thenRowsSatisfy(
        `SELECT to_jsonb(f)::text AS feed, (SELECT json_agg(r)::text FROM events_feed_requests r) AS requests FROM events_feed f`,
        (rows) => expect(JSON.stringify(rows)).not.to.include('ann@example.com'),
      ));

  it('RequestAccepted, RequestRejected, RequestCancelled, RequestRevoked, RequestSuspended and RequestResumed each give theirs, to the request’s organization', () =>
    given(
      eventsFeedProjector,
      sent(),
      sent(other, globex),
      accepted(),
      moved('RequestSuspended'),
      moved('RequestResumed'),
      moved('RequestRevoked'),
      moved('RequestRejected', other),
      sent(third),
      moved('RequestCancelled', third),
    ).thenRows(types, [
      { type: 'request.sent', organization_id: acme, request_id: request },
      { type: 'request.sent', organization_id: globex, request_id: other },
      { type: 'request.accepted', organization_id: acme, request_id: request },
      { type: 'request.suspended', organization_id: acme, request_id: request },
      { type: 'request.resumed', organization_id: acme, request_id: request },
      { type: 'request.revoked', organization_id: acme, request_id: request },
      { type: 'request.rejected', organization_id: globex, request_id: other },
      { type: 'request.sent', organization_id: acme, request_id: third },
      { type: 'request.cancelled', organization_id: acme, request_id: third },
    ]));

  it('SlotGranted gives one slot.granted per record newly granted, with the legal entity it is of; one granted again gives none, one withdrawn gives it anew', () =>
    given(
      eventsFeedProjector,
      sent(),
      accepted(),
      granted(companySlot, [ofEntity(company)]),
      // A later grant lists the slot's records so far.
      granted(companySlot, [ofEntity(company), own(name)]),
      withdrawn(companySlot),
      granted(companySlot, [ofEntity(company)]),
    ).thenRows(feed, [
      row(0, 'request.sent'),
      row(1, 'request.accepted'),
      row(2, 'slot.granted', { slot_id: companySlot, resource_id: company, entity_id: alphaGmbh }),
      row(3, 'slot.granted', { slot_id: companySlot, resource_id: name }, 1),
      row(4, 'slot.withdrawn', { slot_id: companySlot }),
      row(5, 'slot.granted', { slot_id: companySlot, resource_id: company, entity_id: alphaGmbh }),
    ]));

  it('DocumentUpdated and FileVersionAdded give record.updated for every slot of an active connection holding the record, in each organization’s feed', () =>
    given(
      eventsFeedProjector,
      sent(),
      accepted(),
      granted(nameSlot, [own(name)]),
      granted(companySlot, [own(name), ofEntity(company)]),
      sent(other, globex),
      accepted(other),
      granted(nameSlot, [own(name), own(passport)], other),
      updated(name, 2),
      fileVersion(passport, 3),
    ).thenRows(updates, [
      {
        commit: positionOf(7).commit.toString(),
        ordinal: 0,
        organization_id: acme,
        request_id: request,
        slot_id: nameSlot,
        resource_id: name,
        entity_id: null,
        source_version: 2,
      },
      {
        commit: positionOf(7).commit.toString(),
        ordinal: 1,
        organization_id: acme,
        request_id: request,
        slot_id: companySlot,
        resource_id: name,
        entity_id: null,
        source_version: 2,
      },
      {
        commit: positionOf(7).commit.toString(),
        ordinal: 2,
        organization_id: globex,
        request_id: other,
        slot_id: nameSlot,
        resource_id: name,
        entity_id: null,
        source_version: 2,
      },
      {
        commit: positionOf(8).commit.toString(),
        ordinal: 0,
        organization_id: globex,
        request_id: other,
        slot_id: nameSlot,
        resource_id: passport,
        entity_id: null,
        source_version: 3,
      },
    ]));

  it('record.updated follows the log: none before the grant, none while pending, suspended, withdrawn, revoked or past the retention, again once resumed', () =>
    given(
      eventsFeedProjector,
      sent(),
      updated(name, 2),
      accepted(),
      updated(name, 3),
      granted(nameSlot, [own(name)]),
      updated(name, 4),
      moved('RequestSuspended'),
      updated(name, 5),
      moved('RequestResumed'),
      updated(name, 6),
      withdrawn(nameSlot),
      updated(name, 7),
      granted(nameSlot, [own(name)]),
      updated(name, 8),
      // 30 days and a minute after the acceptance: the terms ran out.
      at('2026-01-31T00:01:00.000Z', updated(name, 9)),
      moved('RequestRevoked'),
      updated(name, 10),
    ).thenRowsSatisfy(updates, (rows) => expect(rows.map((r) => r.source_version)).to.deep.equal([4, 6, 8])));

  it('ProposalOpened and ProposalClosed give proposal.opened and proposal.closed naming the proposal, its record and its version', () => {
    const later = uuid(61);
    const opened = (proposalId: string, newVersion: number): RequestEvent => ({
      type: 'ProposalOpened',
      data: {
        requestId: request,
        organizationId: acme,
        proposalId,
        slotId: companySlot,
        resourceId: company,
        newVersion,
        participant,
        proposedAt: minute(3),
      },
    });
    const closed = (proposalId: string): RequestEvent => ({
      type: 'ProposalClosed',
      data: { requestId: request, proposalId, reason: 'dismissed', closedAt: minute(4) },
    });
    const record = { slot_id: companySlot, resource_id: company, entity_id: alphaGmbh };
    return given(
      eventsFeedProjector,
      sent(),
      accepted(),
      granted(companySlot, [ofEntity(company)]),
      opened(proposal, 2),
      opened(later, 3),
      closed(proposal),
      closed(later),
    ).thenRowsSatisfy(feed, (rows) =>
      expect(rows.slice(3)).to.deep.equal([
        row(3, 'proposal.opened', { ...record, proposal_id: proposal, source_version: 2 }),
        row(4, 'proposal.opened', { ...record, proposal_id: later, source_version: 3 }),
        row(5, 'proposal.closed', { ...record, proposal_id: proposal }),
        row(6, 'proposal.closed', { ...record, proposal_id: later }),
      ]),
    );
  });

  it('AdoptionPended, AdoptionDiscarded, CopyKept, CopyCorrected and CopyDeleted give copy.* naming the adoption and the versions', () => {
    const copy = { slot_id: companySlot, resource_id: company, entity_id: alphaGmbh, adoption_id: adoption };
    const chain = { requestId: request, organizationId: acme, slotId: companySlot, sourceResourceId: company };
    return given(
      eventsFeedProjector,
      sent(),
      accepted(),
      granted(companySlot, [ofEntity(company)]),
      {
        type: 'AdoptionPended',
        data: { ...chain, adoptionId: adoption, sourceVersion: 1, resourceType: 'document', participant, adoptedAt: minute(3) },
      },
      kept(1, 1),
      {
        type: 'CopyCorrected',
        data: {
          ...chain,
          orgResourceId: uuid(70),
          orgVersion: 2,
          followsAdoptionId: adoption,
          correctedAt: minute(6),
          sealedData: 'c2VhbGVk',
        },
      },
      {
        type: 'AdoptionDiscarded',
        data: { ...chain, adoptionId: adoption, sourceVersion: 2, reason: 'connection_inactive', discardedAt: minute(7) },
      },
      { type: 'CopyDeleted', data: { ...chain, orgResourceId: uuid(70), adoptionId: adoption, deletedAt: minute(8) } },
    ).thenRowsSatisfy(feed, (rows) =>
      expect(rows.slice(3)).to.deep.equal([
        row(3, 'copy.pending', { ...copy, source_version: 1 }),
        row(4, 'copy.kept', { ...copy, source_version: 1, org_version: 1 }),
        row(5, 'copy.corrected', { ...copy, org_version: 2 }),
        row(6, 'copy.discarded', { ...copy, source_version: 2 }),
        row(7, 'copy.deleted', copy),
      ]),
    );
  });

  it('KeyWarmed and KeySealed give key.warmed and key.sealed; members, apps, receipts and new documents give nothing', () =>
    given(
      eventsFeedProjector,
      { type: 'OrganizationCreated', data: { organizationId: acme, name: 'Acme', createdBy: 'owner@example.com' } },
      { type: 'MemberSet', data: { organizationId: acme, email: 'member@example.com', permissions: ['request_read'] } },
      { type: 'KeyWarmed', data: { organizationId: acme, until: minute(60) } },
      { type: 'KeySealed', data: { organizationId: acme } },
      {
        type: 'AppRegistered',
        data: { organizationId: acme, clientId: 'app', name: 'App', redirectUris: [], jwks: null, jwksUri: null, identityProvider: null },
      },
      { type: 'MemberRemoved', data: { organizationId: acme, email: 'member@example.com' } },
      sent(),
      {
        type: 'ReceiptWritten',
        data: {
          requestId: request,
          organizationId: acme,
          recipientEmail: 'ann@example.com',
          resourceId: name,
          version: 2,
          clientId: null,
          readAt: minute(8),
        },
      },
      {
        type: 'DocumentCreated',
        data: {
          resourceId: name,
          vaultId: uuid(90),
          name: 'Name',
          description: null,
          schemaRef: null,
          documentSchema: {},
          uniquePerVault: false,
          version: 1,
          sealedData: 'c2VhbGVk',
        },
      },
      { type: 'DocumentDeleted', data: { resourceId: name, vaultId: uuid(90) } },
      { type: 'FileUploaded', data: { ...fileVersion(passport, 1).data } },
    ).thenRows(feed, [row(2, 'key.warmed', { request_id: null }), row(3, 'key.sealed', { request_id: null }), row(6, 'request.sent')]));

  it('a proposal closed after its record was granted anew names the grant’s new legal entity, in a batch as one by one', () => {
    const opened: RequestEvent = {
      type: 'ProposalOpened',
      data: {
        requestId: request,
        organizationId: acme,
        proposalId: proposal,
        slotId: companySlot,
        resourceId: company,
        newVersion: 2,
        participant,
        proposedAt: minute(3),
      },
    };
    const closed: RequestEvent = {
      type: 'ProposalClosed',
      data: { requestId: request, proposalId: proposal, reason: 'dismissed', closedAt: minute(6) },
    };
    // The new version ends the batch's first part; the proposal's record is then read from the table, its grant's entity too.
    return given(
      eventsFeedProjector,
      sent(),
      accepted(),
      granted(companySlot, [own(company)]),
      opened,
      updated(company, 2),
      granted(companySlot, [ofEntity(company)]),
      closed,
    ).thenRowsSatisfy(feed, (rows) =>
      expect(rows.at(-1)).to.deep.equal(
        row(6, 'proposal.closed', { slot_id: companySlot, resource_id: company, entity_id: alphaGmbh, proposal_id: proposal }),
      ),
    );
  });

  it('a record granted again after its slot was withdrawn gives slot.granted anew, its first grant in the table as in the batch', () =>
    // The new version ends the batch's first part: the second part's withdrawal must count for the grant the table holds.
    given(
      eventsFeedProjector,
      sent(),
      accepted(),
      granted(nameSlot, [own(name)]),
      updated(name, 2),
      withdrawn(nameSlot),
      granted(nameSlot, [own(name)]),
    ).thenRows(
      `SELECT commit_pos::text AS commit, type FROM events_feed WHERE type <> 'request.sent' AND type <> 'request.accepted'
         ORDER BY commit_pos, prepare_pos, ordinal`,
      [
        { commit: '7002', type: 'slot.granted' },
        { commit: '7003', type: 'record.updated' },
        { commit: '7004', type: 'slot.withdrawn' },
        { commit: '7005', type: 'slot.granted' },
      ],
    ));

  it('any log gives the same feed and tables written as one batch as one event at a time, no two events with one id', async function () {
    this.timeout(120_000);
    const requests = [
      [request, acme],
      [other, globex],
    ] as const;
    const slots = [nameSlot, companySlot];
    const resources = [name, company];
    const proposals = [proposal, uuid(61), uuid(62)];
    const requestOf = fc.constantFrom(...requests.map(([id]) => id));
    const step: fc.Arbitrary<GivenEvent> = fc.oneof(
      fc.constantFrom(...requests).map(([id, organization]) => sent(id, organization)),
      requestOf.map((id) => accepted(id)),
      fc
        .tuple(fc.constantFrom('RequestSuspended', 'RequestResumed', 'RequestRevoked') as fc.Arbitrary<'RequestSuspended'>, requestOf)
        .map(([type, id]) => moved(type, id)),
      fc
        .tuple(requestOf, fc.constantFrom(...slots), fc.subarray(resources, { minLength: 1 }), fc.boolean())
        .map(([id, slot, records, entity]) => granted(slot, records.map(entity ? ofEntity : own), id)),
      fc.tuple(requestOf, fc.constantFrom(...slots)).map(([id, slot]) => withdrawn(slot, id)),
      fc
        .tuple(requestOf, fc.constantFrom(...proposals), fc.constantFrom(...slots), fc.constantFrom(...resources))
        .map(([id, proposalId, slotId, resourceId]): RequestEvent => ({
          type: 'ProposalOpened',
          data: { requestId: id, organizationId: acme, proposalId, slotId, resourceId, newVersion: 2, participant, proposedAt: minute(1) },
        })),
      fc.tuple(requestOf, fc.constantFrom(...proposals)).map(([id, proposalId]): RequestEvent => ({
        type: 'ProposalClosed',
        data: { requestId: id, proposalId, reason: 'dismissed', closedAt: minute(1) },
      })),
      fc.tuple(requestOf, fc.constantFrom(...slots), fc.constantFrom(...resources)).map(([id, slotId, resourceId]): ChainEvent => {
        const copy = kept(1, 2);
        return { ...copy, data: { ...copy.data, requestId: id, slotId, sourceResourceId: resourceId } } as ChainEvent;
      }),
      fc.tuple(fc.constantFrom(...resources), fc.integer({ min: 2, max: 9 })).map(([resourceId, version]) => updated(resourceId, version)),
      fc.constant<GivenEvent>({ type: 'KeyWarmed', data: { organizationId: acme, until: minute(60) } }),
    );
    // A request is sent once and a proposal opened once, as the deciders allow; anything may come before.
    const once = (events: GivenEvent[]) => {
      const seen = new Set<string>();
      return events.filter((e) => {
        if (e.type !== 'RequestSent' && e.type !== 'ProposalOpened') return true;
        const { requestId, proposalId } = e.data as { requestId: string; proposalId?: string };
        const id = proposalId ?? requestId;
        return !seen.has(id) && Boolean(seen.add(id));
      });
    };
    const written = `SELECT (SELECT json_agg(f) FROM (${feed}) f)::text AS feed,
      (SELECT json_agg(r ORDER BY request_id) FROM events_feed_requests r)::text AS requests,
      (SELECT json_agg(g ORDER BY request_id, slot_id, resource_id) FROM events_feed_grants g)::text AS grants,
      (SELECT json_agg(p ORDER BY proposal_id) FROM events_feed_proposals p)::text AS proposals,
      (SELECT count(*) - count(DISTINCT ${FEED_EVENT_ID}) FROM events_feed)::integer AS repeated_ids`;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 20, maxLength: 80 }).map(once), async (events) => {
        const each: Record<string, unknown>[][] = [];
        await given(eventsFeedProjector, ...events).thenRowsSatisfy(written, (rows) => each.push(rows));
        for (const rows of each.slice(1)) expect(rows).to.deep.equal(each[0]);
        expect(each[0]![0]!.repeated_ids, 'no two feed events share an id (R-FEED-06)').to.equal(0);
      }),
      { numRuns: 40 },
    );
  });

  it('a run of request events reads the requests, proposals and grants by index, even in a plan made while the tables were small', async () => {
    const closed: RequestEvent = {
      type: 'ProposalClosed',
      data: { requestId: request, proposalId: proposal, reason: 'dismissed', closedAt: minute(1) },
    };
    const plan = await firstPlanOf([kept(1, 2), closed, granted(nameSlot, [own(name)])], 2);
    expect(plan).to.match(/Index Scan using events_feed_requests_pkey/);
    expect(plan).to.match(/Index Scan using events_feed_grants_pkey/);
    expect(plan).not.to.match(/Seq Scan on events_feed_(grants|requests|proposals)/);
  });

  it('a run of new versions finds its grants and their requests by index, even in a plan made while the tables were small', async () => {
    const plan = await firstPlanOf([updated(name, 2), updated(company, 3)], 1);
    expect(plan).to.match(/Index Scan using events_feed_requests_pkey/);
    expect(plan).not.to.match(/Seq Scan on events_feed_(grants|requests)/);
  });
});
