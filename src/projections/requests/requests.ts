import { readFileSync } from 'node:fs';
import type { Recorded } from '../../events/decoder.js';
import type { UnpositionedEvent } from '../../events/envelope.js';
import { requestEvents, type SlotGranted } from '../../events/request-events.js';
import { projector, writes } from '../projector.js';
import { insertInto, type Row } from '../set-based.js';

/** A grant again of a granted record keeps its time; of a withdrawn one, it is granted anew. */
const grant = insertInto(
  'request_grants',
  ['request_id', 'slot_id', 'resource_id', 'entity_id', 'granted_at'],
  `ON CONFLICT (request_id, slot_id, resource_id) DO UPDATE SET entity_id = EXCLUDED.entity_id, withdrawn_at = NULL,
     granted_at = CASE WHEN request_grants.withdrawn_at IS NULL THEN request_grants.granted_at ELSE EXCLUDED.granted_at END`,
);
const grantRows = (e: Recorded<SlotGranted, UnpositionedEvent>): Row[] =>
  e.data.records.map((r) => ({
    request_id: e.data.requestId,
    slot_id: e.data.slotId,
    resource_id: r.resourceId,
    entity_id: r.entityId,
    granted_at: e.metadata.occurredAt,
  }));

/**
 * One upsert may touch a row once, so a run's grants of one record become one: the last entity,
 * the first time. Withdrawals are not in a run, so the record stays granted from its first grant
 * on, and that grant's time is the one the upserts in turn would keep.
 */
function mergedGrants(rows: readonly Row[]): Row[] {
  const byRecord = new Map<string, Row>();
  for (const row of rows) {
    const key = `${String(row.request_id)}/${String(row.slot_id)}/${String(row.resource_id)}`;
    const first = byRecord.get(key);
    byRecord.set(key, first ? { ...row, granted_at: first.granted_at } : row);
  }
  return [...byRecord.values()];
}

const sql = {
  insert: `INSERT INTO requests (request_id, organization_id, manifest_id, manifest_version, recipient_email, initiated_by,
             initiating_client_id, invitation_expires_at, created_at, sent_commit, sent_prepare, phase)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending') ON CONFLICT (request_id) DO NOTHING`,
  phase: `UPDATE requests SET phase = $2 WHERE request_id = $1`,
  accepted: `UPDATE requests SET phase = 'active', accepted_at = $2, retention_ms = $3 WHERE request_id = $1`,
  withdraw: `UPDATE request_grants SET withdrawn_at = $3 WHERE request_id = $1 AND slot_id = $2 AND withdrawn_at IS NULL`,
};

const setPhase = (phase: string) =>
  writes((e: { readonly data: { readonly requestId: string } }) => [[sql.phase, [e.data.requestId, phase]]]);

export const requestsProjector = projector({
  name: 'requests',
  version: 1,
  schemaSql: readFileSync(new URL('./requests.sql', import.meta.url), 'utf8'),
  events: requestEvents,
  on: {
    RequestSent: async (tx, e) => {
      const d = e.data;
      await tx.query(sql.insert, [
        d.requestId,
        d.organizationId,
        d.manifestId,
        d.manifestVersion,
        d.recipientEmail,
        d.initiatedBy,
        d.initiatingClientId,
        d.invitationExpiresAt,
        e.metadata.occurredAt,
        e.position.commit.toString(),
        e.position.prepare.toString(),
      ]);
    },
    RequestCancelled: setPhase('cancelled'),
    RequestRejected: setPhase('rejected'),
    RequestRevoked: setPhase('revoked'),
    RequestSuspended: setPhase('suspended'),
    RequestResumed: setPhase('active'),
    RequestAccepted: writes(({ data: d }) => [[sql.accepted, [d.requestId, d.acceptedAt, d.retentionMs]]]),
    SlotGranted: writes((e) => grantRows(e).map((row) => grant.one(row))),
    SlotWithdrawn: writes((e) => [[sql.withdraw, [e.data.requestId, e.data.slotId, e.metadata.occurredAt]]]),
  },
  setBased: {
    types: ['SlotGranted'],
    statements: (run) => grant.many(mergedGrants(run.flatMap((e) => (e.type === 'SlotGranted' ? grantRows(e) : [])))),
  },
});
