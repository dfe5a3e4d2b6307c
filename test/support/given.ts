import { expect } from 'chai';
import { fold, type Decider, type DomainEvent } from '../../src/commands/decider.js';
import { isRefusal, type RefusalCode } from '../../src/commands/refusal.js';

/**
 * Spec-shaped tests of a pure decision: given these past events, when this command, then these
 * new events, or this refusal. No database.
 */
export function specFor<State, Command, Event extends DomainEvent>(decider: Decider<State, Command, Event>) {
  return (...past: Event[]) => ({
    when: (command: Command) => {
      const decision = decider.decide(fold(decider, past), command);
      return {
        then(...expected: Event[]): void {
          if (isRefusal(decision)) expect.fail(`refused ${decision.code}: ${decision.message}`);
          expect(decision).to.deep.equal(expected);
        },
        thenRefused(code: RefusalCode, message?: RegExp): void {
          if (!isRefusal(decision)) expect.fail(`expected refusal ${code}, got ${JSON.stringify(decision)}`);
          expect(decision.code).to.equal(code);
          if (message) expect(decision.message).to.match(message);
        },
      };
    },
  });
}

/** specFor one command of an aggregate's decider: `when` takes the command's data, and the spec wraps it in its type. */
export function specOf<
  State,
  Command extends { readonly type: string; readonly data: unknown },
  Event extends DomainEvent,
  T extends Command['type'],
>(decider: Decider<State, Command, Event>, type: T) {
  const given = specFor(decider);
  return (...past: Event[]) => ({
    when: (data: Extract<Command, { readonly type: T }>['data']) => given(...past).when({ type, data } as unknown as Command),
  });
}
