import { readDecoded, type StreamRef } from '../events/decoder.js';
import type { EventStore } from '../events/store.js';
import type { Decider, DomainEvent } from './decider.js';

/** A stream folded up to a revision (-1: a stream with no event yet). */
export type Folded<State> = { readonly state: State; readonly revision: number };

/** A folded stream that may come from memory without a read: then it may be behind the stream. */
export type Recalled<State> = Folded<State> & { readonly fromMemory: boolean };

type Fold<State, Event extends DomainEvent> = Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>;

/** Folded states kept per store, in JSON characters: a long-lived process holds a bounded slice of its streams. */
const BUDGET = 16 * 1024 * 1024;
/**
 * And at most this many streams: the hot set of a busy instance, reached in minutes, so its memory
 * levels off early instead of growing with every stream touched once (a session, a new copy) until
 * the budget is full. Measured in the soak: ~1.4 KB of heap per entry, so about 3 MB.
 */
export const FOLDS_KEPT = 2048;
/** A state larger than this (a document with a large embedded schema) is folded anew each time instead. */
const LARGEST = 256 * 1024;
/**
 * A state is weighed whole when it is first kept, then by the JSON of the events each command folds
 * on top, and whole again this many revisions on (so an estimate off either way is set right) or once
 * the estimate passes LARGEST: weighing a request's state whole at every command costs a few percent
 * of the service's CPU under proposal adopts (docs/decisions.md, "Event store").
 */
const REWEIGH_AFTER = 16;

/** What a folded state grew from: the state it was folded on and the events folded on top. */
export type Growth = { readonly from: unknown; readonly added: readonly { readonly data: unknown }[] };

/**
 * Folded states of the streams this process read or wrote, least recently used first. A stream is
 * append-only, so a state folded up to revision n stays true for those n events: a command reads
 * only what follows and folds it on top, instead of reading and folding the whole stream again.
 * The append's compare-and-set on the revision still decides whether a decision was taken on the
 * newest state. A stream another instance also writes is marked contested once memory was found
 * behind it: from then on its commands read its tail first (recallFolded).
 */
export class FoldCache {
  private readonly entries = new Map<
    string,
    { readonly folded: Folded<unknown>; readonly weight: number; readonly weighedAt: number; contested: boolean }
  >();
  private weight = 0;
  /** Each evolve function folds into its own state shape: entries are kept per function. */
  private readonly ids = new WeakMap<object, number>();
  private lastId = 0;

  key(evolve: object, streamId: string): string {
    let id = this.ids.get(evolve);
    if (id === undefined) this.ids.set(evolve, (id = ++this.lastId));
    return `${id}/${streamId}`;
  }

  get(key: string): Folded<unknown> | undefined {
    return this.touch(key)?.folded;
  }

  /** The entry's state when commands may decide on it without a read first. */
  uncontested(key: string): Folded<unknown> | undefined {
    const entry = this.touch(key);
    return entry && !entry.contested ? entry.folded : undefined;
  }

  contest(key: string): void {
    const entry = this.entries.get(key);
    if (entry) entry.contested = true;
  }

  set(key: string, folded: Folded<unknown>, growth?: Growth): void {
    const entry = this.entries.get(key);
    this.drop(key);
    // Grown from the entry kept: its weight plus what was added, while the last whole weighing is recent.
    const grown =
      entry && growth && entry.folded.state === growth.from && folded.revision - entry.weighedAt < REWEIGH_AFTER
        ? entry.weight + weightOf(growth.added.map((e) => e.data))
        : null;
    const whole = grown === null || grown > LARGEST;
    const weight = whole ? weightOf(folded.state) : grown;
    if (weight > LARGEST) return;
    const weighedAt = whole || !entry ? folded.revision : entry.weighedAt;
    this.entries.set(key, { folded, weight, weighedAt, contested: entry?.contested ?? false });
    this.weight += weight;
    for (const [oldest] of this.entries) {
      if (this.weight <= BUDGET && this.entries.size <= FOLDS_KEPT) break;
      this.drop(oldest);
    }
  }

  private touch(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }
}

/** About the memory a state holds: its JSON, Maps and Sets included (a chain's keeps). */
function weightOf(state: unknown): number {
  const json: string | undefined = JSON.stringify(state, (_, v: unknown) => (v instanceof Map || v instanceof Set ? [...v] : v));
  return json?.length ?? 0;
}

/** An event store whose streams' folded states this process keeps (foldingStore). */
export type FoldingStore = EventStore & { readonly folds: FoldCache };

/**
 * The store commands read, with the folded states of its streams kept in memory: the decorator the
 * composition root puts around the store (src/main.ts). Without it every fold reads its stream
 * whole and nothing is remembered; with it, a fold reads only what follows the revision it knows.
 */
export function foldingStore(store: EventStore): FoldingStore {
  const folds = new FoldCache();
  return {
    get kind() {
      return store.kind;
    },
    folds,
    appendToStream: (streamId, events, expectedRevision) => store.appendToStream(streamId, events, expectedRevision),
    readStream: (streamId, options) => store.readStream(streamId, options),
    readAll: (options) => store.readAll(options),
    subscribeToAll: (options) => store.subscribeToAll(options),
    headPosition: () => store.headPosition(),
    onAppended: (listener) => store.onAppended(listener),
    close: () => store.close(),
  };
}

/** The folded states a store keeps; a store without them (not a foldingStore) keeps none. */
const NO_FOLDS: Pick<FoldCache, 'key' | 'get' | 'uncontested' | 'contest' | 'set'> = {
  key: (_evolve, streamId) => streamId,
  get: () => undefined,
  uncontested: () => undefined,
  contest: () => undefined,
  set: () => undefined,
};

function cacheOf(store: Pick<EventStore, 'readStream'>): Pick<FoldCache, 'key' | 'get' | 'uncontested' | 'contest' | 'set'> {
  return 'folds' in store && store.folds instanceof FoldCache ? store.folds : NO_FOLDS;
}

/** The stream folded to its current end: the events after the revision this process knows, folded on top of what it knew. */
export async function readFolded<State, Event extends DomainEvent>(
  store: Pick<EventStore, 'readStream'>,
  stream: StreamRef<Event>,
  fold: Fold<State, Event>,
): Promise<Folded<State>> {
  const cache = cacheOf(store);
  const key = cache.key(fold.evolve, stream.id);
  const known = (cache.get(key) as Folded<State> | undefined) ?? { state: fold.initialState, revision: -1 };
  const tail = known.revision < 0 ? await readDecoded(store, stream) : await readDecoded(store, stream, known.revision + 1);
  if (tail.length === 0) return known;
  const folded = { state: tail.reduce(fold.evolve, known.state), revision: tail[tail.length - 1]!.revision };
  cache.set(key, folded, { from: known.state, added: tail });
  return folded;
}

/**
 * The stream as this process last folded it, without a read when it has it and no other instance
 * was found writing it. Memory is a prefix of the stream, so what it shows final (a deleted copy or
 * document, a version kept: none is ever undone) is so; anything else only a command may take, and
 * only to append: the append's compare-and-set refuses a decision taken on a state that is behind,
 * and any other answer (a refusal, nothing to do, a clash with a revision the client named) is taken
 * again on a read (shell.ts).
 */
export async function recallFolded<State, Event extends DomainEvent>(
  store: Pick<EventStore, 'readStream'>,
  stream: StreamRef<Event>,
  fold: Fold<State, Event>,
  /** The read models show no event of the stream: without memory of it, its empty state is taken as memory's would be. */
  absent = false,
): Promise<Recalled<State>> {
  const cache = cacheOf(store);
  const known = cache.uncontested(cache.key(fold.evolve, stream.id)) as Folded<State> | undefined;
  if (known) return { ...known, fromMemory: true };
  if (absent) return emptyStream(fold);
  return { ...(await readFolded(store, stream, fold)), fromMemory: false };
}

/** A stream with no event yet, as memory would hold it (HandleOptions.newStream). */
export function emptyStream<State, Event extends DomainEvent>(fold: Fold<State, Event>): Recalled<State> {
  return { state: fold.initialState, revision: -1, fromMemory: true };
}

/** Memory was behind the stream: another instance writes it too, so its commands read first from now on. */
export function contestFolded<State, Event extends DomainEvent>(
  store: Pick<EventStore, 'readStream'>,
  streamId: string,
  fold: Fold<State, Event>,
): void {
  const cache = cacheOf(store);
  cache.contest(cache.key(fold.evolve, streamId));
}

/** What a command's own append made of the stream, so its next command reads nothing it wrote. */
export function rememberFolded<State, Event extends DomainEvent>(
  store: Pick<EventStore, 'readStream'>,
  streamId: string,
  fold: Fold<State, Event>,
  folded: Folded<State>,
  growth?: Growth,
): void {
  const cache = cacheOf(store);
  cache.set(cache.key(fold.evolve, streamId), folded, growth);
}
