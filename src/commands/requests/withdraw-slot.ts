import type { RequestEvent } from '../../events/request-events.js';
import { closed } from '../proposals/close-proposal.js';
import { requestDecision, requireState, type At } from './request-rules.js';

/** The slot reads pending with no records; kept copies stay (R-REQ-23, R-COPY-07); its open proposals close (R-PROP-06). */
export const withdrawSlot = requestDecision<At & { readonly slotId: string }>((s, cmd) => {
  const refused = requireState(s, cmd.now, ['active', 'suspended'], 'withdraw from');
  if (refused) return refused;
  if (!s.grants.has(cmd.slotId)) return [];
  const events: RequestEvent[] = [{ type: 'SlotWithdrawn', data: { requestId: s.requestId, slotId: cmd.slotId } }];
  for (const [id, p] of s.open) if (p.slotId === cmd.slotId) events.push(closed(s.requestId, id, 'withdrawn', cmd.now));
  return events;
});
