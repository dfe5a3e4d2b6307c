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

/** One command's pure decision on its aggregate's state. */
type Decision<State, Event extends DomainEvent> = (state: State, data: never) => readonly Event[] | Refusal;

/**
 * The command union of an aggregate's decisions, in Emmett's shape: one `{type, data}` per
 * decision, its data the decision's own. Derived from the map, so no command lacks a decision.
 */
export type CommandOf<D> = {
  [T in keyof D & string]: D[T] extends (state: never, data: infer Data) => unknown ? { readonly type: T; readonly data: Data } : never;
}[keyof D & string];

/** An aggregate's one decider: fold with evolve; decide a command by the decision its type names. */
export function deciderOf<State, Event extends DomainEvent, D extends Readonly<Record<string, Decision<State, Event>>>>(
  initialState: State,
  evolve: (state: State, event: Event) => State,
  decisions: D,
): Decider<State, CommandOf<D>, Event> {
  return {
    initialState,
    evolve,
    // A command's type names its decision and its data is that decision's (CommandOf): the map cannot be typed per key here.
    decide: (state, command) =>
      (decisions[command.type] as (state: State, data: unknown) => readonly Event[] | Refusal)(state, command.data),
  };
}
