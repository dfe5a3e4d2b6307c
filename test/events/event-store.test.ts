import { EventStoreDbStore } from '../../src/events/eventstoredb/eventstoredb-store.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { openTestDatabase } from '../support/databases.js';
import { startEsdbWire, type EsdbWire } from '../support/esdb-wire/server.js';
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

describe(`event store contract on EventStoreDB (${process.env.EVENTSTORE_URL ? 'EVENTSTORE_URL' : 'the wire-level test server'})`, () => {
  // A real node when EVENTSTORE_URL names one (compose); else the test server: the real client, over gRPC.
  let wire: EsdbWire | null = null;
  before(async () => {
    if (!process.env.EVENTSTORE_URL) wire = await startEsdbWire();
  });
  after(() => wire?.close());
  eventStoreContract(async () => {
    const url = process.env.EVENTSTORE_URL ?? wire?.url;
    if (!url) throw new Error('no EventStoreDB to connect to');
    const store = EventStoreDbStore.connect(url);
    return { store, dispose: () => store.close() };
  });
});
