import type { Decider } from '../decider.js';
import type { GrantedRecord, RequestEvent } from '../../events/request-events.js';
import { evolveRequest, noRequest, type RequestState } from './request-state.js';
import { refuse, type Refusal } from '../refusal.js';
import { evaluateState, type RequestStateName } from '../../requests/request-status.js';

/** Every request command folds the same stream; only decide differs. */
export function requestDecider<C>(
  decide: (state: RequestState, command: C) => readonly RequestEvent[] | Refusal,
): Decider<RequestState, C, RequestEvent> {
  return { initialState: noRequest, evolve: evolveRequest, decide };
}

export type At = { readonly now: Date };

/** R-REQ-20: acting on an expired, cancelled or decided request is a CONFLICT; an unknown one is not found. */
export function requireState(s: RequestState, now: Date, wanted: readonly RequestStateName[], action: string): Refusal | null {
  if (s.phase === 'none') return refuse('not_found', 'no such request');
  const state = evaluateState({ ...s, phase: s.phase }, now);
  return wanted.includes(state) ? null : refuse('conflict', `cannot ${action} a request that is ${state}`);
}

/** A non-multiple slot takes one resource per party: the recipient, or each legal entity. */
export function onePerParty(records: readonly GrantedRecord[], multiple: boolean): Refusal | null {
  if (multiple) return null;
  const parties = records.map((r) => r.entityId ?? '');
  return new Set(parties).size === parties.length ? null : refuse('invalid_request', 'this slot takes one resource per party');
}
