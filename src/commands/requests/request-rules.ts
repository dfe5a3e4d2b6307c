import type { GrantedRecord, RequestEvent } from '../../events/request-events.js';
import type { RequestState } from './request-state.js';
import { refuse, type Refusal } from '../refusal.js';
import { evaluateState, type RequestStateName } from '../../requests/request-status.js';

/**
 * One command's decision on the request's state: the request decider (request-decider.ts) switches
 * to it. Typed here so each command's module reads as the rule alone.
 */
export type RequestDecision<C> = (state: RequestState, command: C) => readonly RequestEvent[] | Refusal;
export const requestDecision = <C>(decide: RequestDecision<C>): RequestDecision<C> => decide;

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
