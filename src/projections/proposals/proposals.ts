import { readFileSync } from 'node:fs';
import { requestEvents } from '../../events/request-events.js';
import { projector } from '../projector.js';

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
    ProposalOpened: (tx, e) => {
      const d = e.data;
      return tx.query(sql.opened, [
        d.proposalId,
        d.requestId,
        d.organizationId,
        d.slotId,
        d.resourceId,
        d.newVersion,
        d.participant === null ? null : JSON.stringify(d.participant),
        d.proposedAt,
      ]);
    },
    ReceiptWritten: (tx, e) => {
      const d = e.data;
      return tx.query(sql.receipt, [
        d.requestId,
        d.organizationId,
        d.recipientEmail,
        d.resourceId,
        d.version,
        d.clientId,
        d.readAt,
        e.metadata.eventId,
      ]);
    },
    ProposalClosed: (tx, e) => tx.query(sql.closed, [e.data.proposalId, e.data.reason, e.data.closedAt]),
  },
});
