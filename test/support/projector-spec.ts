import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DomainEvent } from '../../src/commands/decider.js';
import type { SqlDb } from '../../src/db/sql.js';
import type { NewEvent, RecordedEvent } from '../../src/events/envelope.js';
import { linkEvent } from '../../src/events/hash-chain.js';
import { START, type Position } from '../../src/events/position.js';
import { applyBatch, handlerFor } from '../../src/projections/apply-batch.js';
import { useSchema } from '../../src/projections/checkpoints.js';
import { batchStatementsOf, type Projector } from '../../src/projections/projector.js';
import { installReadModels } from '../../src/projections/read-model-schema.js';
import { openTestDatabase, type TestDatabase } from './databases.js';

/**
 * An event as a decider produced it, optionally placed: in which stream (default `given`), and
 * when (default: minute n of 2026-01-01 for the n-th event given, so each event has its own time).
 */
export type GivenEvent = DomainEvent & { readonly stream?: string; readonly occurredAt?: string; readonly schemaVersion?: number };

/** Places an event at a moment, for specs that assert the time a handler stored. */
export const at = <E extends DomainEvent>(occurredAt: string, event: E, stream?: string): GivenEvent =>
  stream === undefined ? { ...event, occurredAt } : { ...event, occurredAt, stream };

/** An event as an older service wrote it, in schema version `schemaVersion` (upcast on the way in). */
export const writtenIn = <E extends DomainEvent>(schemaVersion: number, event: E): GivenEvent => ({ ...event, schemaVersion });

/**
 * Where the n-th given event (from 0) lands in the log. As on PostgreSQL, commit and prepare are
 * different numbers (transaction id, sequence position), so a handler that swaps them shows.
 */
export const positionOf = (n: number): Position => ({ commit: BigInt(7000 + n), prepare: BigInt(1 + n) });

/** Minute `n` of the default clock: the time the n-th given event (from 0) occurred at. */
export const minute = (n: number): string => new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString();

/** A readable fixed UUID for expected rows: uuid(7) is 00000000-0000-4000-8000-000000000007. */
export const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;

export type Then = PromiseLike<void> & {
  /**
   * Runs `sql` (unqualified table names: they resolve in the projector's scratch schema) and
   * compares every row, in order. Timestamps read back as ISO strings; select bigint and numeric
   * columns cast to int or text, since the two backends hand those back differently.
   */
  thenRows(sql: string, expected: readonly Record<string, unknown>[]): Then;
  /** Runs `sql` likewise and hands the rows to assertions of the spec's own (for values that are not known exactly). */
  thenRowsSatisfy(sql: string, check: (rows: Record<string, unknown>[]) => void): Then;
};

export type Given = (projector: Projector, ...events: readonly GivenEvent[]) => Then;

/**
 * Given-events / then-rows specs of one read model alone, on the suite's backend. Call inside a
 * describe: it opens one test database for the suite; each given() installs only that projector's
 * tables in a fresh schema and applies the events as the engine does (one batch through
 * applyBatch, from the start of the log, envelopes hash-linked per stream). A read model with a
 * set-based form is given the events twice, into two schemas: as one batch in that form, and one by
 * one through its handlers as an inline append does; and a third time, as the statements an inline
 * batch of appends sends (Projector.batchStatements), when it gives them. Every then holds for each.
 */
export function projectorSpecs(): Given {
  let t: TestDatabase | undefined;
  before(async function () {
    this.timeout(60_000);
    t = await openTestDatabase();
  });
  after(() => t?.drop());

  return (projector, ...events) => {
    if (!t) throw new Error('projectorSpecs() must be called inside a describe, and given() inside a test');
    const db = t.db;
    const schema = `spec_${randomBytes(6).toString('hex')}`;
    const log = recorded(projector, events);
    const handled = log.filter((e) => handlerFor(projector, e));
    const { onBatch } = projector;
    const statements = batchStatementsOf(projector, handled);
    const applied = (async () => {
      if (!onBatch) return applyAsTheEngineDoes(db, schema, projector, [log]);
      // Called directly, not under the engine's savepoint: a set-based form that fails must fail the spec.
      await installReadModels(db, [projector], `${schema}_set`);
      await db.transaction(async (tx) => {
        await useSchema(tx, `${schema}_set`);
        await onBatch(tx, handled);
      });
      if (statements) {
        await installReadModels(db, [projector], `${schema}_sent`);
        await db.transaction(async (tx) => {
          await useSchema(tx, `${schema}_sent`);
          for (const statement of statements) await tx.query(...statement);
        });
      }
      await applyAsTheEngineDoes(
        db,
        `${schema}_one`,
        { ...projector, onBatch: undefined },
        log.map((e) => [e]),
      );
    })();
    const schemas = onBatch ? [`${schema}_set`, ...(statements ? [`${schema}_sent`] : []), `${schema}_one`] : [schema];
    return then(db, schemas, applied);
  };
}

/** Installs the projector's tables in `schema` and applies `batches` through applyBatch, in order. */
async function applyAsTheEngineDoes(db: SqlDb, schema: string, projector: Projector, batches: readonly RecordedEvent[][]): Promise<void> {
  await installReadModels(db, [projector], schema);
  let after = START;
  for (const batch of batches) {
    const outcome = await applyBatch(db, schema, projector, after, batch);
    expect(outcome.applied, 'the batch was applied').to.equal(true);
    after = outcome.checkpoint;
  }
}

function then(db: SqlDb, schemas: readonly string[], done: Promise<void>): Then {
  const readEach = (sql: string) => Promise.all(schemas.map((schema) => read(db, schema, sql)));
  return {
    thenRows: (sql, expected) =>
      then(
        db,
        schemas,
        done.then(async () => {
          for (const [i, rows] of (await readEach(sql)).entries()) expect(rows, `${schemas[i]}: ${sql}`).to.deep.equal(expected);
        }),
      ),
    thenRowsSatisfy: (sql, check) =>
      then(
        db,
        schemas,
        done.then(async () => {
          for (const rows of await readEach(sql)) check(rows);
        }),
      ),
    then: (onFulfilled, onRejected) => done.then(onFulfilled, onRejected),
  };
}

/** The envelopes the store would hand the engine: revisions per stream, rising positions, linked hashes. */
export function recorded(projector: Projector, events: readonly GivenEvent[]): RecordedEvent[] {
  const heads = new Map<string, { revision: number; hash: string }>();
  return events.map((given, i) => {
    const { stream = 'given', occurredAt = minute(i), type, data } = given;
    const schemaVersion = given.schemaVersion ?? projector.events?.versionOf(type) ?? 1;
    const head = heads.get(stream);
    const revision = head ? head.revision + 1 : 0;
    const event: NewEvent = {
      type,
      data,
      metadata: {
        eventId: randomUUID(),
        occurredAt,
        actor: { kind: 'system', id: 'projector-spec' },
        correlationId: randomUUID(),
        causationId: null,
        schemaVersion,
      },
    };
    const metadata = linkEvent(stream, revision, event, head?.hash ?? null);
    heads.set(stream, { revision, hash: metadata.hash });
    return { streamId: stream, revision, position: positionOf(i), type, data, metadata };
  });
}

async function read(db: SqlDb, schema: string, sql: string): Promise<Record<string, unknown>[]> {
  const rows = await db.transaction(async (tx) => {
    await useSchema(tx, schema);
    return (await tx.query(sql)).rows;
  });
  return rows.map(plain);
}

function plain(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]));
}
