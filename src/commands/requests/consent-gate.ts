import type { RequestStateName } from '../../requests/request-status.js';
import type { ConsentLapse } from '../../events/consent.js';
import { refuse, type Refusal } from '../refusal.js';

export type { ConsentLapse };

/**
 * What the gate is asked, each read at the moment the data would move: the connection's state now,
 * whether the slot grants this resource now, whether the version resolves, and whether the
 * recipient may still answer for the record's party.
 */
export type ConsentFacts = {
  readonly connection: RequestStateName;
  readonly granted: boolean;
  readonly resolves: boolean;
  readonly eligible: boolean;
};

/**
 * The consent gate (R-CONS-01): the one rule every path that copies or opens a
 * person's record for an organization asks (keep, automatic keep, drain, proposal candidate and
 * adopt, correct's version check). Null: consent stands. Nothing here deletes anything, so a
 * record whose lapse goes away (standing regained, connection resumed) reads available again.
 */
export function consentLapse(facts: ConsentFacts): ConsentLapse | null {
  if (facts.connection !== 'active') return 'connection_inactive';
  if (!facts.granted) return 'not_granted';
  if (!facts.resolves) return 'source_unavailable';
  if (!facts.eligible) return 'participant_ineligible';
  return null;
}

export const LAPSE_MESSAGES: Readonly<Record<ConsentLapse, string>> = {
  connection_inactive: 'the connection is no longer active',
  not_granted: 'the record is no longer granted on this slot',
  source_unavailable: 'the record no longer resolves',
  participant_ineligible: 'the recipient may no longer answer for this party',
};

/** The refusal of a use the gate stopped: 403 participant_ineligible for the party, else 403 adoption_refused. */
export function lapseRefusal(lapse: ConsentLapse, detail = LAPSE_MESSAGES[lapse]): Refusal {
  return refuse(lapse === 'participant_ineligible' ? 'participant_ineligible' : 'adoption_refused', detail);
}
