import { expect } from 'chai';
import { describeVerification, verifyLog } from '../../src/cli/verify-log-command.js';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { linkEvent, verifyChain } from '../../src/events/hash-chain.js';
import { readDecoded, type Recorded } from '../../src/events/decoder.js';
import { logStreams, type LogCheckpointed } from '../../src/events/log-events.js';
import { comparePositions, positionFrom } from '../../src/events/position.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent } from '../support/events.js';
import { asAttacker, SCRIPTED_STREAMS, writeScriptedLog } from '../support/scripted-log.js';

/**
 * docs/audit.md: npm run verify-log finds the first place the log stops being what was written, when
 * someone with access to the database edits, deletes or reorders stored events past the append-only
 * trigger. Each test tampers with the same scripted log, restored afterwards.
 */
function logVerificationSuite(kind: 'pglite' | 'postgres'): void {
  let t: TestDatabase;
  let store: SqlEventStore;
  before(async () => {
    t = await openTestDatabase(kind);
    store = await SqlEventStore.open(t.db);
    await writeScriptedLog(t.db, store);
    await t.db.exec('CREATE TABLE pristine_events AS SELECT * FROM es.events');
  });
  afterEach(() =>
    asAttacker(t.db, ['DELETE FROM es.events', []], ['INSERT INTO es.events OVERRIDING SYSTEM VALUE SELECT * FROM pristine_events', []]),
  );
  after(() => t.drop());

  const verify = () => verifyLog({ db: t.db, store });
  const stream = (id: string) => store.readStream(id);
  const batchOf = async (id: string) => (await stream(id)).filter((e) => e.data.batch !== undefined);
  const deleteEvents = (streamId: string, fromRevision: number, toRevision = fromRevision) =>
    asAttacker(t.db, ['DELETE FROM es.events WHERE stream_id = $1 AND revision BETWEEN $2 AND $3', [streamId, fromRevision, toRevision]]);

  /** The first checkpoint in the log that summarizes the log as of `e` or later. */
  async function firstCheckpointCovering(e: RecordedEvent): Promise<Recorded<LogCheckpointed>> {
    const checkpoints = await readDecoded(store, logStreams.checkpoints);
    const covering = checkpoints.find((c) => comparePositions(positionFrom(c.data.upTo)!, e.position) >= 0);
    expect(covering, 'the script puts a checkpoint after this event').to.not.equal(undefined);
    return covering!;
  }

  it('passes an intact log, having checked every event and every checkpoint', async () => {
    const v = await verify();
    expect(v.firstBreak).to.equal(null);
    expect(v.events).to.equal((await store.readAll({ maxCount: 10_000 })).length);
    expect(v.checkpoints)
      .to.equal((await stream(logStreams.checkpoints.id)).length)
      .and.to.be.greaterThan(3);
    expect(describeVerification(v)).to.equal(`log intact: ${v.events} events, ${v.checkpoints} checkpoints`);
  });

  it('an edited event fails at exactly that event: its position, stream and revision', async () => {
    const edited = (await stream('case-b'))[2]!;
    await asAttacker(t.db, [
      `UPDATE es.events SET data = jsonb_set(data, '{note}', '"rewritten"') WHERE stream_id = 'case-b' AND revision = 2`,
      [],
    ]);
    const v = await verify();
    expect(v.firstBreak).to.deep.include({ position: edited.position, streamId: 'case-b', revision: 2, reason: 'edited' });
    expect(describeVerification(v)).to.match(/^log broken at \d+\/\d+, stream case-b revision 2: edited/);
  });

  it('an edited event whose hash was recomputed fails at the next event of its stream, whose link no longer holds', async () => {
    const [edited, next] = (await stream('case-b')).slice(2, 4);
    const data = { ...edited!.data, note: 'rewritten' };
    const { hash: _, prevHash, ...metadata } = edited!.metadata;
    const rehashed = linkEvent('case-b', edited!.revision, { type: edited!.type, data, metadata }, prevHash);
    await asAttacker(t.db, [
      'UPDATE es.events SET data = $1, metadata = $2 WHERE stream_id = $3 AND revision = $4',
      [JSON.stringify(data), JSON.stringify(rehashed), 'case-b', edited!.revision],
    ]);
    expect((await verify()).firstBreak).to.deep.include({
      position: next!.position,
      streamId: 'case-b',
      revision: next!.revision,
      reason: 'link_broken',
    });
  });

  it('a deleted event fails at its stream, naming the missing revision', async () => {
    const [, deleted, next] = await batchOf('case-b');
    await deleteEvents('case-b', deleted!.revision);
    expect((await verify()).firstBreak).to.deep.include({
      position: next!.position,
      streamId: 'case-b',
      revision: deleted!.revision,
      reason: 'missing',
    });
  });

  it('two events whose revisions were swapped fail at the first of them, out of order', async () => {
    const [first, second] = await batchOf('case-c');
    await asAttacker(
      t.db,
      [`UPDATE es.events SET revision = -1 WHERE stream_id = 'case-c' AND revision = $1`, [first!.revision]],
      [`UPDATE es.events SET revision = $1 WHERE stream_id = 'case-c' AND revision = $2`, [first!.revision, second!.revision]],
      [`UPDATE es.events SET revision = $1 WHERE stream_id = 'case-c' AND revision = -1`, [second!.revision]],
    );
    expect((await verify()).firstBreak).to.deep.include({
      position: first!.position,
      streamId: 'case-c',
      revision: second!.revision,
      reason: 'out_of_order',
    });
  });

  it('an event moved later in the log fails where its stream goes on without it', async () => {
    const [moved, next] = await batchOf('case-d');
    await asAttacker(t.db, [`UPDATE es.events SET position = DEFAULT WHERE stream_id = 'case-d' AND revision = $1`, [moved!.revision]]);
    expect((await verify()).firstBreak).to.deep.include({
      position: next!.position,
      streamId: 'case-d',
      revision: moved!.revision,
      reason: 'missing',
    });
  });

  it('a deleted stream, invisible to the per-stream links, fails at the first checkpoint after it', async () => {
    const checkpoint = await firstCheckpointCovering((await stream('case-c'))[0]!);
    await asAttacker(t.db, [`DELETE FROM es.events WHERE stream_id = 'case-c'`, []]);
    for (const s of SCRIPTED_STREAMS) expect(verifyChain(await stream(s)), s).to.equal(null);
    const v = await verify();
    expect(v.firstBreak).to.deep.include({
      position: checkpoint.position,
      streamId: logStreams.checkpoints.id,
      revision: checkpoint.revision,
      reason: 'heads_differ',
    });
    const streamsThen = checkpoint.data.streams;
    expect(v.firstBreak!.detail).to.contain(`${streamsThen} streams then, ${streamsThen - 1} now`);
  });

  it("a stream's tail dropped before a checkpoint fails at that checkpoint", async () => {
    const events = await stream('case-a');
    const checkpoint = await firstCheckpointCovering(events[2]!);
    await deleteEvents('case-a', 2, events.length - 1);
    expect(verifyChain(await stream('case-a'))).to.equal(null);
    expect((await verify()).firstBreak).to.deep.include({
      position: checkpoint.position,
      streamId: logStreams.checkpoints.id,
      revision: checkpoint.revision,
      reason: 'heads_differ',
    });
  });

  it('cannot see a tail dropped after the last checkpoint (docs/audit.md, what it cannot see)', async () => {
    const { nextExpectedRevision } = await store.appendToStream(
      'case-a',
      [newEvent('Noted', { note: 'after the last checkpoint' })],
      'any',
    );
    await deleteEvents('case-a', nextExpectedRevision);
    expect((await verify()).firstBreak).to.equal(null);
  });
}

describe('verify-log on PGlite (embedded)', () => logVerificationSuite('pglite'));

(process.env.DATABASE_URL ? describe : describe.skip)('verify-log on PostgreSQL', () => logVerificationSuite('postgres'));
