import { EventStoreDbStore } from '../../src/events/eventstoredb/eventstoredb-store.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { openTestDatabase } from '../support/databases.js';
import { eventStoreContract } from './event-store.contract.js';

describe('event store contract on PGlite (embedded)', () => {
  eventStoreContract(async () => {
    const t = await openTestDatabase('pglite');
    return { store: await SqlEventStore.open(t.db), dispose: () => t.drop() };
  });
});

(process.env.DATABASE_URL ? describe : describe.skip)('event store contract on PostgreSQL', () => {
  eventStoreContract(async () => {
    const t = await openTestDatabase('postgres');
    return { store: await SqlEventStore.open(t.db), dispose: () => t.drop() };
  });
});

(process.env.EVENTSTORE_URL ? describe : describe.skip)('event store contract on EventStoreDB', () => {
  eventStoreContract(async () => {
    const url = process.env.EVENTSTORE_URL;
    if (!url) throw new Error('EVENTSTORE_URL is not set');
    const store = EventStoreDbStore.connect(url);
    return { store, dispose: () => store.close() };
  });
});
