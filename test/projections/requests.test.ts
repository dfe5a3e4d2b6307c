import type {
  GrantedRecord,
  RequestAccepted,
  RequestEvent,
  RequestSent,
  SlotGranted,
  SlotWithdrawn,
} from '../../src/events/request-events.js';
import { requestsProjector } from '../../src/projections/requests/requests.js';
import { at, positionOf, projectorSpecs, uuid, writtenIn } from '../support/projector-spec.js';

const request = uuid(1);
const org = uuid(2);
const manifest = uuid(3);
const nameSlot = uuid(10);
const companySlot = uuid(11);
const acme = uuid(30);

const sent = (requestId = request, overrides: Partial<RequestSent['data']> = {}): RequestSent => ({
  type: 'RequestSent',
  data: {
    requestId,
    organizationId: org,
    manifestId: manifest,
    manifestVersion: 4,
    recipientEmail: 'ann@example.com',
    invitationExpiresAt: '2026-12-08T00:00:00.000Z',
    initiatedBy: 'org',
    initiatingClientId: null,
    ...overrides,
  },
});
const accepted: RequestAccepted = {
  type: 'RequestAccepted',
  data: { requestId: request, retention: 'P30D', retentionMs: 2_592_000_000, acceptedAt: '2026-12-02T10:00:00.000Z' },
};
const granted = (slotId: string, ...records: GrantedRecord[]): SlotGranted => ({
  type: 'SlotGranted',
  data: { requestId: request, slotId, records },
});
const withdrawn = (slotId: string): SlotWithdrawn => ({ type: 'SlotWithdrawn', data: { requestId: request, slotId } });
const moved = (type: 'RequestCancelled' | 'RequestRejected' | 'RequestRevoked' | 'RequestSuspended' | 'RequestResumed'): RequestEvent => ({
  type,
  data: { requestId: request },
});
const retention = 'SELECT retention_ms::text AS retention_ms FROM requests';
const own = (n: number): GrantedRecord => ({ resourceId: uuid(n), entityId: null });

const requests = `SELECT request_id, organization_id, manifest_id, manifest_version, recipient_email, initiated_by, initiating_client_id,
                         invitation_expires_at, created_at, sent_commit::text AS sent_commit, sent_prepare::text AS sent_prepare,
                         phase, accepted_at, retention_ms::text AS retention_ms FROM requests ORDER BY request_id`;
const phase = 'SELECT phase FROM requests';
const grants = 'SELECT slot_id, resource_id, entity_id, granted_at, withdrawn_at FROM request_grants ORDER BY slot_id, resource_id';

describe('requests read model: stored facts of each request, states computed at reading', () => {
  const given = projectorSpecs();

  it('RequestSent records the invitation pending, with where in the log it was sent', () =>
    given(requestsProjector, at('2026-12-01T09:00:00.000Z', sent())).thenRows(requests, [
      {
        request_id: request,
        organization_id: org,
        manifest_id: manifest,
        manifest_version: 4,
        recipient_email: 'ann@example.com',
        initiated_by: 'org',
        initiating_client_id: null,
        invitation_expires_at: '2026-12-08T00:00:00.000Z',
        created_at: '2026-12-01T09:00:00.000Z',
        sent_commit: positionOf(0).commit.toString(),
        sent_prepare: positionOf(0).prepare.toString(),
        phase: 'pending',
        accepted_at: null,
        retention_ms: null,
      },
    ]));

  it('a request a person opened from an app names that app', () =>
    given(requestsProjector, sent(request, { initiatedBy: 'recipient', initiatingClientId: uuid(40) })).thenRows(
      'SELECT initiated_by, initiating_client_id FROM requests',
      [{ initiated_by: 'recipient', initiating_client_id: uuid(40) }],
    ));

  it('a RequestSent seen again for the same request changes nothing', () =>
    given(requestsProjector, sent(), sent(request, { recipientEmail: 'other@example.com', manifestVersion: 5 }), sent(uuid(4))).thenRows(
      'SELECT request_id, recipient_email, manifest_version, sent_prepare::text AS sent_prepare FROM requests ORDER BY request_id',
      [
        { request_id: request, recipient_email: 'ann@example.com', manifest_version: 4, sent_prepare: positionOf(0).prepare.toString() },
        { request_id: uuid(4), recipient_email: 'ann@example.com', manifest_version: 4, sent_prepare: positionOf(2).prepare.toString() },
      ],
    ));

  it('RequestAccepted makes it active with the decided acceptance time and the retention in milliseconds', () =>
    given(requestsProjector, sent(), at('2026-12-02T10:00:07.000Z', accepted)).thenRows(
      'SELECT phase, accepted_at, retention_ms::text AS retention_ms FROM requests',
      [{ phase: 'active', accepted_at: '2026-12-02T10:00:00.000Z', retention_ms: '2592000000' }],
    ));

  it('a RequestAccepted of schema version 1 with a retention over 100 years reads as 100 years (upcast to version 2)', async () => {
    const endless = { ...accepted, data: { ...accepted.data, retention: 'P999999999Y', retentionMs: 999_999_999 * 31_536_000_000 } };
    await given(requestsProjector, sent(), writtenIn(1, endless)).thenRows(retention, [{ retention_ms: '3153600000000' }]);
    // Within the bound, version 1 and version 2 read alike.
    await given(requestsProjector, sent(), writtenIn(1, accepted)).thenRows(retention, [{ retention_ms: '2592000000' }]);
  });

  it('RequestCancelled and RequestRejected close a pending request, each in its own phase', async () => {
    await given(requestsProjector, sent(), moved('RequestCancelled')).thenRows(phase, [{ phase: 'cancelled' }]);
    await given(requestsProjector, sent(), moved('RequestRejected')).thenRows(phase, [{ phase: 'rejected' }]);
  });

  it('RequestSuspended, RequestResumed and RequestRevoked move an accepted request; acceptance stays on record', async () => {
    await given(requestsProjector, sent(), accepted, moved('RequestSuspended')).thenRows(phase, [{ phase: 'suspended' }]);
    await given(requestsProjector, sent(), accepted, moved('RequestSuspended'), moved('RequestResumed')).thenRows(
      'SELECT phase, accepted_at FROM requests',
      [{ phase: 'active', accepted_at: '2026-12-02T10:00:00.000Z' }],
    );
    await given(requestsProjector, sent(), accepted, moved('RequestRevoked')).thenRows(
      'SELECT phase, accepted_at, retention_ms::text AS retention_ms FROM requests',
      [{ phase: 'revoked', accepted_at: '2026-12-02T10:00:00.000Z', retention_ms: '2592000000' }],
    );
  });

  it('a phase change touches only its own request', () =>
    given(requestsProjector, sent(), sent(uuid(4)), moved('RequestRejected')).thenRows(
      'SELECT request_id, phase FROM requests ORDER BY request_id',
      [
        { request_id: request, phase: 'rejected' },
        { request_id: uuid(4), phase: 'pending' },
      ],
    ));

  it("SlotGranted records each answer of the slot, own or a legal entity's, at the event's time", () =>
    given(
      requestsProjector,
      sent(),
      accepted,
      at('2026-12-03T00:00:00.000Z', granted(nameSlot, own(20))),
      at(
        '2026-12-03T00:01:00.000Z',
        granted(companySlot, { resourceId: uuid(21), entityId: acme }, { resourceId: uuid(22), entityId: uuid(31) }),
      ),
    ).thenRows(grants, [
      { slot_id: nameSlot, resource_id: uuid(20), entity_id: null, granted_at: '2026-12-03T00:00:00.000Z', withdrawn_at: null },
      { slot_id: companySlot, resource_id: uuid(21), entity_id: acme, granted_at: '2026-12-03T00:01:00.000Z', withdrawn_at: null },
      { slot_id: companySlot, resource_id: uuid(22), entity_id: uuid(31), granted_at: '2026-12-03T00:01:00.000Z', withdrawn_at: null },
    ]));

  it('a grant that adds answers to a slot keeps the time of those already standing', () =>
    given(
      requestsProjector,
      sent(),
      accepted,
      at('2026-12-03T00:00:00.000Z', granted(companySlot, { resourceId: uuid(21), entityId: acme })),
      at(
        '2026-12-04T00:00:00.000Z',
        granted(companySlot, { resourceId: uuid(21), entityId: acme }, { resourceId: uuid(22), entityId: acme }),
      ),
    ).thenRows(grants, [
      { slot_id: companySlot, resource_id: uuid(21), entity_id: acme, granted_at: '2026-12-03T00:00:00.000Z', withdrawn_at: null },
      { slot_id: companySlot, resource_id: uuid(22), entity_id: acme, granted_at: '2026-12-04T00:00:00.000Z', withdrawn_at: null },
    ]));

  it('SlotWithdrawn marks every standing answer of that slot and keeps the rows; other slots stand', () =>
    given(
      requestsProjector,
      sent(),
      accepted,
      at('2026-12-03T00:00:00.000Z', granted(nameSlot, own(20))),
      at(
        '2026-12-03T00:00:00.000Z',
        granted(companySlot, { resourceId: uuid(21), entityId: acme }, { resourceId: uuid(22), entityId: acme }),
      ),
      at('2026-12-05T00:00:00.000Z', withdrawn(companySlot)),
      at('2026-12-06T00:00:00.000Z', withdrawn(companySlot)),
    ).thenRows(grants, [
      { slot_id: nameSlot, resource_id: uuid(20), entity_id: null, granted_at: '2026-12-03T00:00:00.000Z', withdrawn_at: null },
      {
        slot_id: companySlot,
        resource_id: uuid(21),
        entity_id: acme,
        granted_at: '2026-12-03T00:00:00.000Z',
        withdrawn_at: '2026-12-05T00:00:00.000Z',
      },
      {
        slot_id: companySlot,
        resource_id: uuid(22),
        entity_id: acme,
        granted_at: '2026-12-03T00:00:00.000Z',
        withdrawn_at: '2026-12-05T00:00:00.000Z',
      },
    ]));

  it("granting a withdrawn answer again makes it stand anew from the new grant's time", () =>
    given(
      requestsProjector,
      sent(),
      accepted,
      at('2026-12-03T00:00:00.000Z', granted(nameSlot, own(20))),
      at('2026-12-05T00:00:00.000Z', withdrawn(nameSlot)),
      at('2026-12-07T00:00:00.000Z', granted(nameSlot, own(20))),
    ).thenRows(grants, [
      { slot_id: nameSlot, resource_id: uuid(20), entity_id: null, granted_at: '2026-12-07T00:00:00.000Z', withdrawn_at: null },
    ]));
});
