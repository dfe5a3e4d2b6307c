import { streamHeadsProjector } from '../../src/projections/stream-heads/stream-heads.js';
import { at, minute, projectorSpecs, uuid } from '../support/projector-spec.js';

const heads = `SELECT stream_id, category, revision::int AS revision, event_count::int AS event_count, first_type, last_type,
                      created_at, last_occurred_at FROM stream_heads ORDER BY stream_id`;

describe('stream_heads read model: one row per stream of the log', () => {
  const given = projectorSpecs();
  const org = `org-${uuid(1)}`;
  const request = `request-${uuid(2)}`;

  it("a stream's first event of any type opens its row: category, revision 0, first and last type alike", () =>
    given(
      streamHeadsProjector,
      at(
        '2026-02-03T04:05:06.789Z',
        { type: 'OrganizationCreated', data: { organizationId: uuid(1), name: 'Acme', createdBy: uuid(9) } },
        org,
      ),
    ).thenRows(heads, [
      {
        stream_id: org,
        category: 'org',
        revision: 0,
        event_count: 1,
        first_type: 'OrganizationCreated',
        last_type: 'OrganizationCreated',
        created_at: '2026-02-03T04:05:06.789Z',
        last_occurred_at: '2026-02-03T04:05:06.789Z',
      },
    ]));

  it('later events move revision, count, last type and time; the first type and creation time stay', () =>
    given(
      streamHeadsProjector,
      { type: 'RequestSent', data: { requestId: uuid(2) }, stream: request },
      { type: 'RequestAccepted', data: { requestId: uuid(2) }, stream: request },
      { type: 'SlotGranted', data: { requestId: uuid(2) }, stream: request },
    ).thenRows(heads, [
      {
        stream_id: request,
        category: 'request',
        revision: 2,
        event_count: 3,
        first_type: 'RequestSent',
        last_type: 'SlotGranted',
        created_at: minute(0),
        last_occurred_at: minute(2),
      },
    ]));

  it('interleaved streams keep separate rows; a stream id without a dash is its own category', () =>
    given(
      streamHeadsProjector,
      { type: 'OrganizationCreated', data: {}, stream: org },
      { type: 'Ticked', data: {}, stream: 'clock' },
      { type: 'MemberSet', data: {}, stream: org },
      { type: 'Ticked', data: {}, stream: 'clock' },
      { type: 'Ticked', data: {}, stream: 'clock' },
    ).thenRows(heads, [
      {
        stream_id: 'clock',
        category: 'clock',
        revision: 2,
        event_count: 3,
        first_type: 'Ticked',
        last_type: 'Ticked',
        created_at: minute(1),
        last_occurred_at: minute(4),
      },
      {
        stream_id: org,
        category: 'org',
        revision: 1,
        event_count: 2,
        first_type: 'OrganizationCreated',
        last_type: 'MemberSet',
        created_at: minute(0),
        last_occurred_at: minute(2),
      },
    ]));
});
