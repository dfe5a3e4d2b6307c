import type { DomainEvent } from '../events/domain-event.js';
import type { Refusal } from './refusal.js';

export type { DomainEvent };

/**
 * One aggregate's rules, pure: fold its stream with evolve, then decide a command against that
 * state. Time, ids and the actor come in on the command; nothing here reads a clock or does I/O.
 */
export type Decider<State, Command, Event extends DomainEvent> = {
  readonly initialState: State;
  readonly evolve: (state: State, event: Event) => State;
  readonly decide: (state: State, command: Command) => readonly Event[] | Refusal;
};

export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
  events: readonly Event[],
): State {
  return events.reduce(decider.evolve, decider.initialState);
}
