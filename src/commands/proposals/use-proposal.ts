import type { ReceiptWritten, RequestEvent } from '../../events/request-events.js';
import { refuse, type Refusal } from '../refusal.js';
import { closed } from './close-proposal.js';
import { consentLapse, lapseRefusal, type ConsentFacts } from '../requests/consent-gate.js';
import { requestDecision, type At } from '../requests/request-rules.js';

/**
 * A member reads a proposal's candidate or adopts it (R-PROP-03, R-PROP-04, R-CONS-03), decided on
 * the facts read at the moment of use: the organization key's warmth, the connection's state, the
 * slot's grant of the record, whether the version resolves, whether the recipient may answer for
 * its party, and whether the proposal is open. Read models are written in each append's
 * transaction, so they are as current as the request's stream.
 */
export type UseProposal = At &
  ConsentFacts & {
    readonly requestId: string;
    readonly proposalId: string;
    readonly keyWarm: boolean;
    readonly open: boolean;
    /** A candidate read leaves this receipt on the person's side; an adopt keeps instead (null). */
    readonly receipt: ReceiptWritten['data'] | null;
  };

/**
 * Contract §8's order, the consent gate in it: 423 with the key cold, then the gate (403
 * adoption_refused on an inactive connection, a record no longer granted or resolving; 403
 * participant_ineligible), then 409 once decided or superseded. A record no longer granted or
 * resolving withdraws its open proposal: the answer is then `proposalWithdrawn`.
 */
export const useProposal = requestDecision<UseProposal>((_s, cmd): readonly RequestEvent[] | Refusal => {
  if (!cmd.keyWarm) return refuse('org_sealed', 'the organization key is cold: a member must sign in first');
  const lapse = consentLapse(cmd);
  if (lapse === 'connection_inactive') return refuse('adoption_refused', `the connection is ${cmd.connection}`);
  if ((lapse === 'not_granted' || lapse === 'source_unavailable') && cmd.open)
    return [closed(cmd.requestId, cmd.proposalId, 'withdrawn', cmd.now)];
  if (lapse !== null) return lapseRefusal(lapse);
  if (!cmd.open) return refuse('conflict', 'this proposal is no longer open');
  return cmd.receipt === null ? [] : [{ type: 'ReceiptWritten', data: cmd.receipt }];
});

/** The answer to a use that withdrew its proposal instead (R-CONS-03). */
export const proposalWithdrawn = (): Refusal =>
  refuse('adoption_refused', 'the record is no longer granted or no longer resolves: the proposal is withdrawn');
