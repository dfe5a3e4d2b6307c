import type { SqlEventStore } from '../../src/events/sql/sql-event-store.js';

/** A store whose reads of the log are counted: how often a reader looks at it, pages and empty looks alike. */
export class CountedReads {
  count = 0;
  readonly store: SqlEventStore;

  constructor(inner: SqlEventStore) {
    const store = Object.create(inner) as SqlEventStore;
    store.readAll = (options) => {
      this.count++;
      return inner.readAll(options);
    };
    this.store = store;
  }
}
