import type { ProposalClosed, ProposalOpened } from '../../src/events/request-events.js';
import { proposalsProjector } from '../../src/projections/proposals/proposals.js';
import { projectorSpecs, uuid } from '../support/projector-spec.js';

const opened = (proposalId: string, newVersion: number): ProposalOpened => ({
  type: 'ProposalOpened',
  data: {
    requestId: uuid(1),
    organizationId: uuid(2),
    proposalId,
    slotId: uuid(3),
    resourceId: uuid(4),
    newVersion,
    participant: null,
    proposedAt: `2026-10-0${newVersion}T09:00:00.000Z`,
  },
});
const closed = (proposalId: string, reason: ProposalClosed['data']['reason']): ProposalClosed => ({
  type: 'ProposalClosed',
  data: { requestId: uuid(1), proposalId, reason, closedAt: '2026-10-09T09:00:00.000Z' },
});
const rows = 'SELECT proposal_id, new_version, state, closed_reason, closed_at FROM proposals ORDER BY new_version';

describe('proposals read model: every notice, open or closed with its reason', () => {
  const given = projectorSpecs();

  it('ProposalOpened lists an open proposal with the newest version', () =>
    given(proposalsProjector, opened(uuid(10), 2)).thenRows(rows, [
      { proposal_id: uuid(10), new_version: 2, state: 'open', closed_reason: null, closed_at: null },
    ]));

  it('ProposalClosed closes it with its reason; a superseding one opens in its place', () =>
    given(proposalsProjector, opened(uuid(10), 2), closed(uuid(10), 'superseded'), opened(uuid(11), 3)).thenRows(rows, [
      { proposal_id: uuid(10), new_version: 2, state: 'closed', closed_reason: 'superseded', closed_at: '2026-10-09T09:00:00.000Z' },
      { proposal_id: uuid(11), new_version: 3, state: 'open', closed_reason: null, closed_at: null },
    ]));

  it("ReceiptWritten records one candidate read for the person's receipts", () =>
    given(proposalsProjector, {
      type: 'ReceiptWritten',
      data: {
        requestId: uuid(1),
        organizationId: uuid(2),
        recipientEmail: 'ann@example.com',
        resourceId: uuid(4),
        version: 3,
        clientId: null,
        readAt: '2026-10-09T10:00:00.000Z',
      },
    }).thenRows('SELECT recipient_email, resource_id, version, organization_id, client_id, read_at FROM receipts', [
      {
        recipient_email: 'ann@example.com',
        resource_id: uuid(4),
        version: 3,
        organization_id: uuid(2),
        client_id: null,
        read_at: '2026-10-09T10:00:00.000Z',
      },
    ]));
});
