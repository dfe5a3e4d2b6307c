import type { RequestId } from '../ids.js';
import type { Slot } from '../events/manifest-events.js';
import { iso } from '../organizations/member.js';
import type { GrantRow, RequestRow } from './request-queries.js';
import { evaluateState, type RequestStateName, type StoredPhase } from './request-status.js';

/** R-REQ-10: the list entry, also the request object of the detail. */
export type RequestSummary = {
  readonly requestId: RequestId;
  readonly manifestId: string;
  readonly manifestName: string;
  readonly manifestVersion: number;
  readonly recipientEmail: string;
  readonly state: RequestStateName;
  readonly initiatedBy: 'org' | 'recipient';
  readonly initiatingClientId?: string;
  readonly invitationExpiresAt: string;
  readonly createdAt: string;
};

export function stateOf(row: RequestRow, now: Date): RequestStateName {
  return evaluateState(
    {
      // The projector writes only the deciders' phases.
      phase: row.phase as StoredPhase,
      invitationExpiresAt: iso(row.invitation_expires_at),
      acceptedAt: row.accepted_at === null ? null : iso(row.accepted_at),
      retentionMs: row.retention_ms === null ? null : Number(row.retention_ms),
    },
    now,
  );
}

/** initiatingClientId is absent on requests an organization sent (R-REQ-25, "open"). */
export function summaryOf(row: RequestRow, now: Date): RequestSummary {
  return {
    // A read model holds ids in their one form already.
    requestId: row.request_id as RequestId,
    manifestId: row.manifest_id,
    manifestName: row.manifest_name,
    manifestVersion: row.manifest_version,
    recipientEmail: row.recipient_email,
    state: stateOf(row, now),
    initiatedBy: row.initiated_by,
    ...(row.initiating_client_id === null ? {} : { initiatingClientId: row.initiating_client_id }),
    invitationExpiresAt: iso(row.invitation_expires_at),
    createdAt: iso(row.created_at),
  };
}

/** The pinned version's slots, as the manifests projector stored them. */
export const slotsOf = (row: RequestRow): Slot[] => row.slots as Slot[];

/** R-REQ-13 without records: what both planes show of a slot. */
export type SlotView = Omit<Slot, 'subject'> & { readonly subject?: NonNullable<Slot['subject']>; readonly status: 'granted' | 'pending' };

export function slotFields({ subject, ...slot }: Slot, granted: readonly GrantRow[]): SlotView {
  return { ...slot, ...(subject === null ? {} : { subject }), status: granted.length > 0 ? ('granted' as const) : ('pending' as const) };
}

/** Request and RequestItem (R-REQ-26): the person's view, with the resources they granted. */
export type PersonRequest = Omit<RequestSummary, 'initiatingClientId'> & {
  readonly organizationId: string;
  readonly organizationName: string;
  readonly initiatingClientId: string | null;
  /** §11: the pinned version's purpose and retention, as the person reads them before accepting. */
  readonly purpose: string;
  readonly retention: string;
  readonly items: readonly (SlotView & { readonly resourceIds: readonly string[] })[];
};

export function personRequestOf(row: RequestRow, grants: readonly GrantRow[], now: Date): PersonRequest {
  const { manifestName, ...summary } = summaryOf(row, now);
  return {
    ...summary,
    organizationId: row.organization_id,
    organizationName: row.organization_name,
    manifestName,
    initiatingClientId: row.initiating_client_id,
    purpose: row.purpose,
    retention: row.retention,
    items: slotsOf(row).map((slot) => {
      const granted = grants.filter((g) => g.slot_id === slot.slotId);
      return { ...slotFields(slot, granted), resourceIds: granted.map((g) => g.resource_id) };
    }),
  };
}
