import type { Slot } from '../events/manifest-events.js';
import type { SqlExecutor } from '../db/sql.js';
import type { ParticipantAliases } from './participant-alias.js';
import { requestSql as q, type GrantRow, type RequestRow } from './request-queries.js';
import { consentLapse, type ConsentFacts } from '../commands/requests/consent-gate.js';
import type { RecordReason, RequestStateName } from './request-status.js';

/** R-REQ-15: sourceVersion only while available; reason only while unavailable. */
export type RecordEntry = {
  readonly resourceId: string;
  readonly participant: { readonly subjectId: string; readonly type: 'legal_entity'; readonly alias: string } | null;
  readonly sourceVersion?: number;
  readonly status: 'available' | 'unavailable';
  readonly reason?: RecordReason;
};

/** Which of a request's parties the recipient still manages right now (the resources' versions come with the grants). */
export type Standing = { readonly managed: ReadonlySet<string> };

/**
 * Record status at read time (R-REQ-17, R-REQ-18): whether the resource still resolves and whether the
 * recipient still manages the entity are read now, so regaining standing shows at once and
 * nothing is ever deleted to make a record unavailable.
 */
export class RecordReader {
  constructor(
    private readonly readModels: SqlExecutor,
    private readonly aliases: ParticipantAliases,
  ) {}

  /** One query for the whole request, however many records it has (the detail is polled); none when no grant names an entity. */
  async standing(row: RequestRow, grants: readonly GrantRow[]): Promise<Standing> {
    const entityIds = [...new Set(grants.flatMap((g) => (g.entity_id === null ? [] : [g.entity_id])))];
    const managed =
      entityIds.length === 0
        ? []
        : (await this.readModels.query<{ entity_id: string }>(q.managedAmong, [entityIds, row.recipient_email])).rows;
    return { managed: new Set(managed.map((m) => m.entity_id)) };
  }

  /** The consent gate's facts for one grant of the request, as read now. */
  factsOf(state: RequestStateName, grant: GrantRow, standing: Standing): ConsentFacts {
    const eligible = grant.entity_id === null || standing.managed.has(grant.entity_id);
    return { connection: state, granted: true, resolves: grant.version !== null, eligible };
  }

  /** The gate's facts for a record of a slot, as read now: not granted when no grant of the slot names it. */
  factsFor(state: RequestStateName, grants: readonly GrantRow[], standing: Standing, slotId: string, resourceId: string): ConsentFacts {
    const grant = grantOf(grants, slotId, resourceId);
    return grant ? this.factsOf(state, grant, standing) : { connection: state, granted: false, resolves: true, eligible: true };
  }

  records(row: RequestRow, state: RequestStateName, slot: Slot, grants: readonly GrantRow[], standing: Standing): RecordEntry[] {
    return grants.map((g) => {
      // A granted record: the gate's not_granted cannot arise here.
      const reason = consentLapse(this.factsOf(state, g, standing)) as RecordReason | null;
      const participant =
        g.entity_id === null
          ? null
          : {
              subjectId: slot.subject ?? '',
              type: 'legal_entity' as const,
              alias: this.aliases.aliasFor(row.organization_id, g.entity_id),
            };
      return reason === null && g.version !== null
        ? { resourceId: g.resource_id, participant, sourceVersion: g.version, status: 'available' as const }
        : { resourceId: g.resource_id, participant, status: 'unavailable' as const, reason: reason ?? 'source_unavailable' };
    });
  }
}

/** The grant of a record on a slot; by slot too, as one record may be granted on several slots of a request. */
export const grantOf = (grants: readonly GrantRow[], slotId: string, resourceId: string): GrantRow | undefined =>
  grants.find((g) => g.slot_id === slotId && g.resource_id === resourceId);
