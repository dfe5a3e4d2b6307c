import { requestDecider, requireState, type At } from './request-decider.js';

/** The slot reads pending with no records; kept copies stay (R-REQ-23, R-COPY-07). */
export const withdrawSlot = requestDecider<At & { readonly slotId: string }>((s, cmd) => {
  const refused = requireState(s, cmd.now, ['active', 'suspended'], 'withdraw from');
  if (refused) return refused;
  return s.grants.has(cmd.slotId) ? [{ type: 'SlotWithdrawn', data: { requestId: s.requestId, slotId: cmd.slotId } }] : [];
});
