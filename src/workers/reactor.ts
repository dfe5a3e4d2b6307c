import type { DomainEvent } from '../commands/decider.js';
import type { EventDecoder, Recorded } from '../events/decoder.js';
import type { RecordedEvent } from '../events/envelope.js';

/**
 * A reactor (DESIGN.md "Queues and reactors"): reads the log from a checkpoint of its own, outside
 * the read-model schema, so a replay never runs it again, and acts by enqueueing jobs whose ids
 * derive from the event's id. Seeing an event twice therefore changes nothing.
 */
export type Reactor = {
  readonly name: string;
  readonly types: ReadonlySet<string>;
  /**
   * Of a page's events of its types, those that need their reaction: one lookup for the page where
   * each reaction would otherwise find out alone that it has nothing to do. All of them when absent.
   */
  worthReacting?(events: readonly RecordedEvent[]): Promise<readonly RecordedEvent[]>;
  react(event: RecordedEvent): Promise<void>;
};

export type Reactions<E extends DomainEvent> = {
  readonly [K in E['type']]?: (event: Recorded<Extract<E, { readonly type: K }>>) => Promise<void>;
};

/** A reactor over the events `events` decodes: each reaction reads its event typed and upcast. */
export function reactor<E extends DomainEvent>(definition: {
  readonly name: string;
  readonly events: EventDecoder<E>;
  readonly on: Reactions<E>;
  readonly worthReacting?: (events: readonly Recorded<E>[]) => Promise<ReadonlySet<Recorded<E>>>;
}): Reactor {
  const reactions = new Map(
    (Object.entries(definition.on) as [string, ((event: Recorded<E>) => Promise<void>) | undefined][]).flatMap(([type, react]) =>
      react ? [[type, react] as const] : [],
    ),
  );
  const select = definition.worthReacting;
  return {
    name: definition.name,
    types: new Set(reactions.keys()),
    ...(select
      ? {
          worthReacting: async (events: readonly RecordedEvent[]) => {
            const decoded = events.map((e) => definition.events.decode(e));
            const kept = await select(decoded);
            return events.filter((_, i) => kept.has(decoded[i]!));
          },
        }
      : {}),
    react: async (event) => {
      const react = reactions.get(event.type);
      if (react) await react(definition.events.decode(event));
    },
  };
}
