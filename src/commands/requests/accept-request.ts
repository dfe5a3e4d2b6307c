import type { GrantedRecord, RequestEvent } from '../../events/request-events.js';
import { isRefusal, refuse, type Refusal } from '../refusal.js';
import { onePerParty, requestDecision, requireState, type At } from './request-rules.js';

export type AcceptRequest = At & {
  readonly retention: string;
  readonly retentionMs: number;
  /**
   * Grants already checked against the pinned manifest and the recipient's vaults, or why that
   * check refused them: a refusal that counts only once the request may be accepted at all.
   */
  readonly grants:
    ReadonlyArray<{ readonly slotId: string; readonly records: readonly GrantedRecord[]; readonly multiple: boolean }> | Refusal;
  /** §11: the slots of the pinned manifest version marked required, each of which needs a grant. */
  readonly requiredSlots: ReadonlyArray<{ readonly slotId: string; readonly label: string }>;
};
/** pending → active with the grants; the manifest version pinned at send is the one consented to. */
export const acceptRequest = requestDecision<AcceptRequest>((s, cmd) => {
  // R-REQ-20: an invitation no longer open is a CONFLICT, whatever the grants say.
  const refused = requireState(s, cmd.now, ['pending'], 'accept');
  if (refused) return refused;
  const { grants } = cmd;
  if (isRefusal(grants)) return grants;
  for (const g of grants) {
    const crowded = onePerParty(g.records, g.multiple);
    if (crowded) return crowded;
  }
  const missing = cmd.requiredSlots.filter((r) => !grants.some((g) => g.slotId === r.slotId && g.records.length > 0));
  if (missing.length > 0) {
    const named = missing.map((r) => `"${r.label}" (${r.slotId})`).join(', ');
    return refuse('invalid_request', `accepting needs a grant for every required slot; none for ${named}`);
  }
  const events: RequestEvent[] = [
    {
      type: 'RequestAccepted',
      data: { requestId: s.requestId, retention: cmd.retention, retentionMs: cmd.retentionMs, acceptedAt: cmd.now.toISOString() },
    },
  ];
  for (const g of grants) events.push({ type: 'SlotGranted', data: { requestId: s.requestId, slotId: g.slotId, records: [...g.records] } });
  return events;
});
