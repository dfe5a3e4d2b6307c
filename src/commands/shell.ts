import { randomUUID } from 'node:crypto';
import type { EventDecoder, StreamRef } from '../events/decoder.js';
import type { EventContext, NewEvent } from '../events/envelope.js';
import { isWrongExpectedVersion } from '../events/errors.js';
import type { Position } from '../events/position.js';
import type { EventStore } from '../events/store.js';
import type { Decider, DomainEvent } from './decider.js';
import { deterministicUuid } from '../events/deterministic-id.js';
import { isRefusal, refuse, type Refusal } from './refusal.js';
import { contestFolded, emptyStream, readFolded, recallFolded, rememberFolded, type Folded, type Recalled } from './stream-folds.js';

export type CommandDeps = {
  readonly store: EventStore;
  /** Read-your-writes: resolves once every read model that handles these event types holds the event at `position`. */
  readonly waitFor: (position: Position, eventTypes: readonly string[]) => Promise<void>;
};

export type HandleOptions = {
  readonly context: EventContext;
  /**
   * Identifies this command; event ids derive from it, so a retried request appends nothing new.
   * Defaults to a fresh id (no deduplication across requests).
   */
  readonly commandId?: string;
  /**
   * The stream revision the client named (a version it read). A clash is then answered with
   * `onClash` at once instead of deciding again on the newer state.
   */
  readonly expectedRevision?: number;
  /** Decisions again on a fresh read after a concurrent writer moved the stream (default 3). */
  readonly retries?: number;
  readonly onClash?: Refusal;
  /**
   * The stream is named by an id the caller has just drawn at random (a new session, request,
   * document): nothing can be in it yet, so the first decision takes the empty state without a read.
   * It is taken as memory is: should the stream hold anything, the append is refused and the command reads.
   */
  readonly newStream?: boolean;
};

/**
 * `known`: the stream as the caller just folded it (to check access: readFolded, or recallFolded
 * from memory): the first decision takes it instead of reading the stream again; a clash reads on
 * from it.
 */
export type HandleOptionsOf<State> = HandleOptions & { readonly known?: Folded<State> | Recalled<State> };

export type Handled<Event extends DomainEvent, State> = {
  readonly events: readonly Event[];
  /** The state after the new events. */
  readonly state: State;
  /** Revision of the stream's last event, or -1 when it still has none. */
  readonly revision: number;
  readonly position: Position | null;
};

/**
 * The one way commands run: fold the stream (from memory, or reading only what follows the revision
 * this process knows: recallFolded), decide, append with that revision, and answer only when read
 * models include the new events. A concurrent writer makes the append fail; then the command is
 * decided again on the newer state, a bounded number of times.
 *
 * A state from memory may be behind the stream, and only the append's compare-and-set proves it is
 * not: any other answer taken on it (a refusal, nothing to do, a clash with the client's revision)
 * is taken again on a read, and a failed append on it reads without counting as a clash.
 */
export async function handle<State, Command, Event extends DomainEvent>(
  deps: CommandDeps,
  stream: StreamRef<Event>,
  decider: Decider<State, Command, Event>,
  command: Command,
  options: HandleOptionsOf<State>,
): Promise<Handled<Event, State> | Refusal> {
  const commandId = options.commandId ?? randomUUID();
  const attempts = options.expectedRevision === undefined ? 1 + (options.retries ?? 3) : 1;
  let next: Folded<State> | Recalled<State> | null =
    options.known ?? (options.newStream ? emptyStream(decider) : await recallFolded(deps.store, stream, decider));
  for (let clashes = 0; ;) {
    const folded = next ?? (await readFolded(deps.store, stream, decider));
    next = null;
    const fromMemory = 'fromMemory' in folded && folded.fromMemory;
    const { state, revision } = folded;
    if (options.expectedRevision !== undefined && options.expectedRevision !== revision) {
      if (fromMemory) continue;
      return options.onClash ?? refuse('conflict', 'the resource changed since it was read');
    }
    const decision = decider.decide(state, command);
    if (fromMemory && (isRefusal(decision) || decision.length === 0)) continue;
    if (isRefusal(decision)) return decision;
    if (decision.length === 0) return { events: [], state, revision, position: null };

    const envelopes = decision.map((e, i) =>
      envelope(e, stream.events, options, deterministicUuid(commandId, `${stream.id}/${revision + 1 + i}`)),
    );
    try {
      const appended = await deps.store.appendToStream(stream.id, envelopes, revision === -1 ? 'no_stream' : revision);
      const after = { state: decision.reduce(decider.evolve, state), revision: appended.nextExpectedRevision };
      rememberFolded(deps.store, stream.id, decider, after, { from: state, added: decision });
      await deps.waitFor(
        appended.position,
        decision.map((e) => e.type),
      );
      return { events: decision, ...after, position: appended.position };
    } catch (e) {
      if (!isWrongExpectedVersion(e)) throw e;
      if (fromMemory) contestFolded(deps.store, stream.id, decider);
      else if (++clashes >= attempts) return options.onClash ?? refuse('conflict', 'the resource is being changed concurrently; try again');
    }
  }
}

/** Written in the current version of its type, the version the decoder reads without upcasting. */
function envelope<Event extends DomainEvent>(event: Event, events: EventDecoder<Event>, options: HandleOptions, eventId: string): NewEvent {
  return {
    type: event.type,
    data: event.data,
    metadata: { ...options.context, eventId, schemaVersion: events.versionOf(event.type) },
  };
}
