import type { ReceiptWritten, RequestEvent } from '../../events/request-events.js';
import { evaluateState } from '../../requests/request-status.js';
import { refuse, type Refusal } from '../refusal.js';
import { closed } from './close-proposal.js';
import { consentLapse, lapseRefusal } from '../requests/consent-gate.js';
import { grantedNow } from '../requests/discard-adoption.js';
import { requestDecision, type At } from '../requests/request-rules.js';

/**
 * A member reads a proposal's candidate or adopts it (R-PROP-03, R-PROP-04, R-CONS-03).
 * The proposal's record comes from its read model (a closed one is no longer in the request's
 * state); whether it resolves and whether the recipient may answer for its party are read now.
 */
export type UseProposal = At & {
  readonly proposalId: string;
  readonly slotId: string;
  readonly resourceId: string;
  readonly keyWarm: boolean;
  readonly resolves: boolean;
  readonly eligible: boolean;
  /** A candidate read leaves this receipt on the person's side; an adopt keeps instead (null). */
  readonly receipt: ReceiptWritten['data'] | null;
};

/**
 * Contract §8's order, the consent gate in it: 423 with the key cold, then the gate (403
 * adoption_refused on an inactive connection, a record no longer granted or resolving; 403
 * participant_ineligible), then 409 once decided or superseded. A record no longer granted or
 * resolving withdraws its open proposal: the answer is then `proposalWithdrawn`.
 */
export const useProposal = requestDecision<UseProposal>((s, cmd): readonly RequestEvent[] | Refusal => {
  if (s.phase === 'none') return refuse('not_found', 'no such request');
  if (!cmd.keyWarm) return refuse('org_sealed', 'the organization key is cold: a member must sign in first');
  const connection = evaluateState({ ...s, phase: s.phase }, cmd.now);
  const granted = grantedNow(s, cmd.slotId, cmd.resourceId);
  const lapse = consentLapse({ connection, granted, resolves: cmd.resolves, eligible: cmd.eligible });
  const open = s.open.has(cmd.proposalId);
  if (lapse === 'connection_inactive') return refuse('adoption_refused', `the connection is ${connection}`);
  if ((lapse === 'not_granted' || lapse === 'source_unavailable') && open)
    return [closed(s.requestId, cmd.proposalId, 'withdrawn', cmd.now)];
  if (lapse !== null) return lapseRefusal(lapse);
  if (!open) return refuse('conflict', 'this proposal is no longer open');
  return cmd.receipt === null ? [] : [{ type: 'ReceiptWritten', data: cmd.receipt }];
});

/** The answer to a use that withdrew its proposal instead (R-CONS-03). */
export const proposalWithdrawn = (): Refusal =>
  refuse('adoption_refused', 'the record is no longer granted or no longer resolves: the proposal is withdrawn');
