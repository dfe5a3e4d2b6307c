import type { Slot } from '../events/manifest-events.js';
import type { SqlExecutor } from '../db/sql.js';
import type { ParticipantAliases } from './participant-alias.js';
import { requestSql as q, type GrantRow, type RequestRow, type ResourceRow } from './request-queries.js';
import { recordReason, type RecordReason, type RequestStateName } from './request-status.js';

/** Spec §2.4. sourceVersion only while available; reason only while unavailable. */
export type RecordEntry = {
  readonly resourceId: string;
  readonly participant: { readonly subjectId: string; readonly type: 'legal_entity'; readonly alias: string } | null;
  readonly sourceVersion?: number;
  readonly status: 'available' | 'unavailable';
  readonly reason?: RecordReason;
};

/**
 * Record status at read time (spec §3.3): whether the resource still resolves and whether the
 * recipient still manages the entity are read now, so regaining standing shows at once and
 * nothing is ever deleted to make a record unavailable.
 */
export class RecordReader {
  constructor(private readonly readModels: SqlExecutor, private readonly aliases: ParticipantAliases) {}

  async records(row: RequestRow, state: RequestStateName, slot: Slot, grants: readonly GrantRow[]): Promise<RecordEntry[]> {
    const out: RecordEntry[] = [];
    for (const g of grants) {
      const resource = (await this.readModels.query<ResourceRow>(q.resource, [g.resource_id])).rows[0];
      const eligible = g.entity_id === null || (await this.readModels.query(q.managerOf, [g.entity_id, row.recipient_email])).rowCount > 0;
      const reason = recordReason(state, resource !== undefined, eligible);
      const participant = g.entity_id === null ? null
        : { subjectId: slot.subject ?? '', type: 'legal_entity' as const, alias: this.aliases.aliasFor(row.organization_id, g.entity_id) };
      out.push(reason === null && resource
        ? { resourceId: g.resource_id, participant, sourceVersion: resource.version, status: 'available' }
        : { resourceId: g.resource_id, participant, status: 'unavailable', reason: reason ?? 'source_unavailable' });
    }
    return out;
  }
}
