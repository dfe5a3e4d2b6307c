import { readFileSync } from 'node:fs';
import type { Recorded } from '../../events/decoder.js';
import type { UnpositionedEvent } from '../../events/envelope.js';
import {
  requestEvents,
  type ProposalClosed,
  type ProposalOpened,
  type ReceiptWritten,
  type RequestEvent,
} from '../../events/request-events.js';
import { projector, writes, type Statement } from '../projector.js';
import { insertInto, updateOf, type Row } from '../set-based.js';

const opened = insertInto('proposals', [
  'proposal_id',
  'request_id',
  'organization_id',
  'slot_id',
  'resource_id',
  'new_version',
  'participant',
  'proposed_at',
  'state',
]);
const receipt = insertInto('receipts', [
  'request_id',
  'organization_id',
  'recipient_email',
  'resource_id',
  'version',
  'client_id',
  'read_at',
  'event_id',
]);
const closed = updateOf('proposals', 'proposal_id', ['state', 'closed_reason', 'closed_at']);

const openedRow = ({ data: d }: Recorded<ProposalOpened, UnpositionedEvent>): Row => ({
  proposal_id: d.proposalId,
  request_id: d.requestId,
  organization_id: d.organizationId,
  slot_id: d.slotId,
  resource_id: d.resourceId,
  new_version: d.newVersion,
  participant: d.participant,
  proposed_at: d.proposedAt,
  state: 'open',
});
const receiptRow = ({ data: d, metadata }: Recorded<ReceiptWritten, UnpositionedEvent>): Row => ({
  request_id: d.requestId,
  organization_id: d.organizationId,
  recipient_email: d.recipientEmail,
  resource_id: d.resourceId,
  version: d.version,
  client_id: d.clientId,
  read_at: d.readAt,
  event_id: metadata.eventId,
});
const closedRow = ({ data: d }: Recorded<ProposalClosed, UnpositionedEvent>): Row => ({
  proposal_id: d.proposalId,
  state: 'closed',
  closed_reason: d.reason,
  closed_at: d.closedAt,
});

/** A proposal opens before it closes in its request's stream, so a run's inserts go before its closes. */
function runStatements(run: readonly Recorded<RequestEvent>[]): Statement[] {
  const rows = { opened: [] as Row[], receipts: [] as Row[], closed: [] as Row[] };
  for (const e of run) {
    if (e.type === 'ProposalOpened') rows.opened.push(openedRow(e));
    else if (e.type === 'ReceiptWritten') rows.receipts.push(receiptRow(e));
    else if (e.type === 'ProposalClosed') rows.closed.push(closedRow(e));
  }
  return [...opened.many(rows.opened), ...receipt.many(rows.receipts), ...closed.many(rows.closed)];
}

export const proposalsProjector = projector({
  name: 'proposals',
  version: 1,
  schemaSql: readFileSync(new URL('./proposals.sql', import.meta.url), 'utf8'),
  events: requestEvents,
  on: {
    ProposalOpened: writes((e) => [opened.one(openedRow(e))]),
    ReceiptWritten: writes((e) => [receipt.one(receiptRow(e))]),
    ProposalClosed: writes((e) => [closed.one(closedRow(e))]),
  },
  setBased: { types: ['ProposalOpened', 'ReceiptWritten', 'ProposalClosed'], statements: runStatements },
});
