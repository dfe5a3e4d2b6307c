import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Decider, DomainEvent } from '../../src/commands/decider.js';
import { refuse, isRefusal } from '../../src/commands/refusal.js';
import { handle, type CommandDeps } from '../../src/commands/shell.js';
import { eventDecoder, streamOf, type StreamRef } from '../../src/events/decoder.js';
import type { EventContext } from '../../src/events/envelope.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { ProjectionEngine } from '../../src/projections/engine.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { specFor } from '../support/given.js';
import { newEvent, uniqueStream } from '../support/events.js';
import { recordingProjector, recordedRows } from '../support/projectors.js';

/** A seat booking: enough rules to exercise the shell (refusals, retries, idempotency). */
type Booked = DomainEvent<'SeatBooked', { seat: number; by: string }>;
type Book = { seat: number; by: string };
type Seats = { taken: Map<number, string> };

const seats: Decider<Seats, Book, Booked> = {
  initialState: { taken: new Map() },
  evolve: (s, e) => ({ taken: new Map(s.taken).set(e.data.seat, e.data.by) }),
  decide: (s, c) => {
    const holder = s.taken.get(c.seat);
    if (holder === c.by) return [];
    if (holder) return refuse('conflict', `seat ${c.seat} is taken`);
    return [{ type: 'SeatBooked', data: { seat: c.seat, by: c.by } }];
  },
};

const seatEvents = eventDecoder<Booked>('seat', { SeatBooked: { version: 1 } });
const seatsIn = (id: string): StreamRef<Booked> => streamOf(seatEvents, id);

const context = (): EventContext => ({
  occurredAt: '2026-11-22T12:00:00.000Z',
  actor: { kind: 'user', id: 'u1' },
  correlationId: randomUUID(),
  causationId: null,
});

describe('a pure decision (given events, when command, then events or refusal)', () => {
  const given = specFor(seats);
  it('books a free seat', () =>
    given()
      .when({ seat: 1, by: 'ann' })
      .then({ type: 'SeatBooked', data: { seat: 1, by: 'ann' } }));
  it('refuses a seat someone else holds', () =>
    given({ type: 'SeatBooked', data: { seat: 1, by: 'bob' } })
      .when({ seat: 1, by: 'ann' })
      .thenRefused('conflict', /taken/));
  it('booking your own seat again changes nothing', () =>
    given({ type: 'SeatBooked', data: { seat: 1, by: 'ann' } })
      .when({ seat: 1, by: 'ann' })
      .then());
});

describe(`the command shell (${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;
  let deps: CommandDeps;
  let engine: ProjectionEngine;

  before(async () => {
    t = await openTestDatabase();
    const store = await SqlEventStore.open(t.db);
    engine = new ProjectionEngine({ db: t.db, store, projectors: [recordingProjector('seen')], idlePollMs: 20 });
    await engine.start();
    deps = { store, waitFor: (p, eventTypes) => engine.waitFor(p, { eventTypes }) };
  });
  after(async () => {
    await engine.stop();
    await t.drop();
  });

  it('appends the decided events with the context in their metadata, and answers once read models have them', async () => {
    const stream = uniqueStream('seats');
    const ctx = context();
    const r = await handle(deps, seatsIn(stream), seats, { seat: 3, by: 'ann' }, { context: ctx });
    if (isRefusal(r)) expect.fail(r.message);
    expect(r.revision).to.equal(0);
    const [stored] = await deps.store.readStream(stream);
    expect(stored!.metadata).to.include({ correlationId: ctx.correlationId, occurredAt: ctx.occurredAt, schemaVersion: 1 });
    // Read-your-writes: no polling needed.
    expect((await recordedRows(t.db, 'seen')).map((x) => x.stream_id)).to.include(stream);
  });

  it('answers a refusal and writes nothing', async () => {
    const stream = uniqueStream('seats');
    await handle(deps, seatsIn(stream), seats, { seat: 1, by: 'bob' }, { context: context() });
    const r = await handle(deps, seatsIn(stream), seats, { seat: 1, by: 'ann' }, { context: context() });
    expect(isRefusal(r) && r.code).to.equal('conflict');
    expect(await deps.store.readStream(stream)).to.have.length(1);
  });

  it('decides again on the newer state when concurrent commands clash, so all succeed', async () => {
    const stream = uniqueStream('seats');
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((seat) => handle(deps, seatsIn(stream), seats, { seat, by: `p${seat}` }, { context: context(), retries: 10 })),
    );
    expect(results.filter(isRefusal)).to.deep.equal([]);
    expect((await deps.store.readStream(stream)).map((e) => e.data.seat).sort()).to.deep.equal([1, 2, 3, 4, 5]);
  });

  it('with a client-named revision, a clash answers the given refusal at once and writes nothing', async () => {
    const stream = uniqueStream('seats');
    await handle(deps, seatsIn(stream), seats, { seat: 1, by: 'ann' }, { context: context() });
    const r = await handle(
      deps,
      seatsIn(stream),
      seats,
      { seat: 2, by: 'bob' },
      {
        context: context(),
        expectedRevision: -1,
        onClash: refuse('version_conflict', 'stale'),
      },
    );
    expect(isRefusal(r) && r.code).to.equal('version_conflict');
    expect(await deps.store.readStream(stream)).to.have.length(1);
  });

  it('the same command id gives the same event ids, so a lost-answer retry is not appended twice', async () => {
    const stream = uniqueStream('seats');
    const commandId = randomUUID();
    await handle(deps, seatsIn(stream), seats, { seat: 1, by: 'ann' }, { context: context(), commandId });
    const [first] = await deps.store.readStream(stream);
    const other = uniqueStream('seats');
    await handle(deps, seatsIn(other), seats, { seat: 1, by: 'ann' }, { context: context(), commandId });
    const [second] = await deps.store.readStream(other);
    expect(first!.metadata.eventId).to.not.equal(second!.metadata.eventId);
    await deps.store.appendToStream(stream, [{ type: first!.type, data: first!.data, metadata: first!.metadata }], 'no_stream');
    expect(await deps.store.readStream(stream)).to.have.length(1);
  });

  it('folds events written in an older schema version through their upcaster, and writes the current version', async () => {
    // Version 1 of SeatBooked named the seat `row`; version 2 calls it `seat`.
    const upcasting = eventDecoder<Booked>('seat', {
      SeatBooked: { version: 2, upcasters: { 1: ({ row, ...rest }) => ({ ...rest, seat: row ?? null }) } },
    });
    const stream = uniqueStream('seats');
    await deps.store.appendToStream(stream, [newEvent('SeatBooked', { row: 1, by: 'bob' }, { schemaVersion: 1 })], 'no_stream');

    const taken = await handle(deps, streamOf(upcasting, stream), seats, { seat: 1, by: 'ann' }, { context: context() });
    expect(isRefusal(taken) && taken.message).to.equal('seat 1 is taken');
    const booked = await handle(deps, streamOf(upcasting, stream), seats, { seat: 2, by: 'ann' }, { context: context() });
    if (isRefusal(booked)) expect.fail(booked.message);
    const [, second] = await deps.store.readStream(stream);
    expect(second!.metadata.schemaVersion).to.equal(2);
    expect(second!.data).to.deep.equal({ seat: 2, by: 'ann' });
  });
});
