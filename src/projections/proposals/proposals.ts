import { readFileSync } from 'node:fs';
import { requestEvents } from '../../events/request-events.js';
import { projector, writes } from '../projector.js';

const sql = {
  opened: `INSERT INTO proposals (proposal_id, request_id, organization_id, slot_id, resource_id, new_version, participant, proposed_at,
             state)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'open')`,
  receipt: `INSERT INTO receipts (request_id, organization_id, recipient_email, resource_id, version, client_id, read_at, event_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  closed: `UPDATE proposals SET state = 'closed', closed_reason = $2, closed_at = $3 WHERE proposal_id = $1`,
};

export const proposalsProjector = projector({
  name: 'proposals',
  version: 1,
  schemaSql: readFileSync(new URL('./proposals.sql', import.meta.url), 'utf8'),
  events: requestEvents,
  on: {
    ProposalOpened: writes(({ data: d }) => [
      [
        sql.opened,
        [
          d.proposalId,
          d.requestId,
          d.organizationId,
          d.slotId,
          d.resourceId,
          d.newVersion,
          d.participant === null ? null : JSON.stringify(d.participant),
          d.proposedAt,
        ],
      ],
    ]),
    ReceiptWritten: writes((e) => [
      [
        sql.receipt,
        [
          e.data.requestId,
          e.data.organizationId,
          e.data.recipientEmail,
          e.data.resourceId,
          e.data.version,
          e.data.clientId,
          e.data.readAt,
          e.metadata.eventId,
        ],
      ],
    ]),
    ProposalClosed: writes((e) => [[sql.closed, [e.data.proposalId, e.data.reason, e.data.closedAt]]]),
  },
});
