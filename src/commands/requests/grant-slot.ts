import type { GrantedRecord } from '../../events/request-events.js';
import { onePerParty, requestDecision, requireState, type At } from './request-rules.js';

export type GrantSlot = At & { readonly slotId: string; readonly records: readonly GrantedRecord[]; readonly multiple: boolean };

/**
 * Adds answers on an active request. A non-multiple slot takes one resource per party (the
 * recipient, or each entity), so a second one for the same party is refused.
 */
export const grantSlot = requestDecision<GrantSlot>((s, cmd) => {
  const refused = requireState(s, cmd.now, ['active'], 'grant on');
  if (refused) return refused;
  const existing = s.grants.get(cmd.slotId) ?? [];
  const merged = [...existing, ...cmd.records.filter((r) => !existing.some((e) => e.resourceId === r.resourceId))];
  const crowded = onePerParty(merged, cmd.multiple);
  if (crowded) return crowded;
  if (merged.length === existing.length) return [];
  return [{ type: 'SlotGranted', data: { requestId: s.requestId, slotId: cmd.slotId, records: merged } }];
});
