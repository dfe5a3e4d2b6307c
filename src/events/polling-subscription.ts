import type { RecordedEvent } from './envelope.js';
import type { Position } from './position.js';
import type { EventStore, Subscription } from './store.js';

const IDLE_POLL_MS = 250;
const PAGE = 500;

/**
 * A subscription built from readAll: pages through the log, then sleeps until an append
 * notification or the idle poll (which also covers events held back behind an older open transaction).
 */
export function pollingSubscription(store: Pick<EventStore, 'readAll' | 'onAppended'>, from: Position): Subscription {
  let closed = false;
  let wake: (() => void) | null = null;
  // Set by a notification that arrives while a page is being read, so it is not slept through.
  let appended = false;
  const stopListening = store.onAppended(() => {
    appended = true;
    wake?.();
  });

  async function* events(): AsyncGenerator<RecordedEvent> {
    let after = from;
    try {
      while (!closed) {
        appended = false;
        const page = await store.readAll({ after, maxCount: PAGE });
        for (const event of page) {
          if (closed) return;
          yield event;
          after = event.position;
        }
        if (page.length < PAGE && !closed && !appended) await sleep();
      }
    } finally {
      stopListening();
    }
  }

  function sleep(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, IDLE_POLL_MS);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });
  }

  const iterator = events();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close: async () => {
      closed = true;
      wake?.();
      await iterator.return(undefined);
    },
  };
}
