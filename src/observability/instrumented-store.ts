import { streamCategory } from '../events/envelope.js';
import type { EventStore } from '../events/store.js';
import type { Metrics } from './metrics.js';

/** The event store, counting every event it appends; everything else passes straight through. */
export function instrumentedStore(store: EventStore, metrics: Pick<Metrics, 'eventsAppended'>): EventStore {
  return {
    get kind() {
      return store.kind;
    },
    appendToStream: async (streamId, events, expectedRevision) => {
      const result = await store.appendToStream(streamId, events, expectedRevision);
      const category = streamCategory(streamId);
      // A retried append answered from the first one is counted again; the counter is a rate, not a ledger.
      for (const e of events) metrics.eventsAppended.inc({ category, type: e.type });
      return result;
    },
    readStream: (streamId, options) => store.readStream(streamId, options),
    readAll: (options) => store.readAll(options),
    subscribeToAll: (options) => store.subscribeToAll(options),
    headPosition: () => store.headPosition(),
    onAppended: (listener) => store.onAppended(listener),
    close: () => store.close(),
  };
}
