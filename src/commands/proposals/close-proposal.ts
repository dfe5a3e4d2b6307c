import type { ProposalCloseReason, RequestEvent } from '../../events/request-events.js';
import { refuse } from '../refusal.js';
import { requestDecision, type At } from '../requests/request-rules.js';

/**
 * R-PROP-04, R-PROP-05: a member decides an open proposal. Adopting one that is no longer open
 * (decided by another member, or superseded) is a conflict; dismissing it changes nothing.
 */
export const decideProposal = requestDecision<At & { readonly proposalId: string; readonly decision: 'adopted' | 'dismissed' }>(
  (s, cmd) => {
    if (!s.open.has(cmd.proposalId)) {
      return cmd.decision === 'adopted' ? refuse('conflict', 'this proposal is no longer open') : [];
    }
    return [closed(s.requestId, cmd.proposalId, cmd.decision, cmd.now)];
  },
);

/** R-KEEP-13: keeping a version at or past an open proposal's newVersion closes that proposal. */
export const closeKeptProposals = requestDecision<
  At & { readonly slotId: string; readonly resourceId: string; readonly keptVersion: number }
>((s, cmd) =>
  [...s.open]
    .filter(([, p]) => p.slotId === cmd.slotId && p.resourceId === cmd.resourceId && p.newVersion <= cmd.keptVersion)
    .map(([id]) => closed(s.requestId, id, 'kept', cmd.now)),
);

export function closed(requestId: string, proposalId: string, reason: ProposalCloseReason, now: Date): RequestEvent {
  return { type: 'ProposalClosed', data: { requestId, proposalId, reason, closedAt: now.toISOString() } };
}
