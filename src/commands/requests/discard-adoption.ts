import type { RequestEvent } from '../../events/request-events.js';
import { evaluateState } from '../../requests/request-status.js';
import { refuse } from '../refusal.js';
import { hasVersion } from '../version-set.js';
import { consentLapse } from './consent-gate.js';
import { requestDecision, type At } from './request-rules.js';
import { pendedVersions, type RequestState } from './request-state.js';

/** A pended keep at its drain, with the facts the request's own stream cannot know (read by the drain just before). */
export type DiscardLapsed = At & {
  readonly adoptionId: string;
  readonly slotId: string;
  readonly sourceResourceId: string;
  readonly sourceVersion: number;
  readonly resolves: boolean;
  readonly eligible: boolean;
};

/**
 * R-CONS-02: a pended keep whose consent no longer stands when it is drained is discarded
 * with the gate's reason. The connection's state and the slot's grants are the request's own.
 * A keep no longer pended (discarded or kept by a concurrent drain) needs nothing; one whose
 * consent stands on the request's own state is refused, and the drain keeps it.
 */
export const discardLapsed = requestDecision<DiscardLapsed>((s, cmd) => {
  if (s.phase === 'none' || !hasVersion(pendedVersions(s, cmd.slotId, cmd.sourceResourceId), cmd.sourceVersion)) return [];
  const lapse = consentLapse({
    connection: evaluateState({ ...s, phase: s.phase }, cmd.now),
    granted: grantedNow(s, cmd.slotId, cmd.sourceResourceId),
    resolves: cmd.resolves,
    eligible: cmd.eligible,
  });
  if (lapse === null) return refuse('conflict', 'consent stands: the keep is drained, not discarded');
  const discarded: RequestEvent = {
    type: 'AdoptionDiscarded',
    data: {
      requestId: s.requestId,
      organizationId: s.organizationId,
      adoptionId: cmd.adoptionId,
      slotId: cmd.slotId,
      sourceResourceId: cmd.sourceResourceId,
      sourceVersion: cmd.sourceVersion,
      reason: lapse,
      discardedAt: cmd.now.toISOString(),
    },
  };
  return [discarded];
});

/** Whether the slot grants the resource now, as the request's stream has its grants. */
export const grantedNow = (s: RequestState, slotId: string, resourceId: string): boolean =>
  (s.grants.get(slotId) ?? []).some((r) => r.resourceId === resourceId);
