import { expect } from 'chai';
import { verifyLog } from '../../src/cli/verify-log-command.js';
import { logStreams } from '../../src/events/log-events.js';
import { allProjectors } from '../../src/projections/index.js';
import { replay } from '../../src/projections/replay.js';
import { formatPosition } from '../../src/events/position.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { createLogger } from '../../src/logger.js';
import { LogCheckpointer } from '../../src/workers/log-checkpointer.js';
import { CountedReads } from '../support/counted-reads.js';
import { openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent } from '../support/events.js';
import { SCRIPTED_CHECKPOINT_EVERY, writeScriptedLog } from '../support/scripted-log.js';

const every = SCRIPTED_CHECKPOINT_EVERY;

describe('log checkpointer (docs/audit.md)', () => {
  let t: TestDatabase;
  let store: SqlEventStore;
  before(async () => {
    t = await openTestDatabase();
    store = await SqlEventStore.open(t.db);
    await writeScriptedLog(t.db, store);
  });
  after(() => t.drop());

  const checkpointer = (idlePollMs?: number) =>
    new LogCheckpointer({ db: t.db, store, every, logger: createLogger('silent'), ...(idlePollMs ? { idlePollMs } : {}) });
  const checkpoints = () => store.readStream(logStreams.checkpoints.id);

  it('appends a LogCheckpointed after every N events of the log, counting the events and streams up to it', async () => {
    const log = await store.readAll({ maxCount: 10_000 });
    const written = await checkpoints();
    // Caught up, it has counted every event of the log, its own checkpoints included.
    expect(written.length).to.equal(Math.floor(log.length / every));
    written.forEach((c, i) => {
      const upTo = log[(i + 1) * every - 1]!;
      expect(c.data).to.deep.include({
        upTo: formatPosition(upTo.position),
        events: (i + 1) * every,
        streams: new Set(log.slice(0, (i + 1) * every).map((e) => e.streamId)).size,
      });
      expect(c.metadata.causationId).to.equal(upTo.metadata.eventId);
    });
  });

  it('resumes where it stood, and appends no checkpoint twice even when it lost its state', async () => {
    const before = (await checkpoints()).length;
    expect(await checkpointer().catchUp()).to.equal(0);
    await t.db.exec('DELETE FROM reactors.log_checkpointer; DELETE FROM reactors.log_heads');
    expect(await checkpointer().catchUp()).to.equal(before);
    expect(await checkpoints()).to.have.length(before);
    expect((await verifyLog({ db: t.db, store })).firstBreak).to.equal(null);
  });

  it('runs in the background and checkpoints the events appended while it runs', async () => {
    const before = (await checkpoints()).length;
    const running = checkpointer(20);
    await running.start();
    try {
      for (let i = 0; i < every; i++) await store.appendToStream('case-new', [newEvent('Noted', { i })], 'any');
      const deadline = Date.now() + 5000;
      while ((await checkpoints()).length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await running.stop();
    }
    expect((await checkpoints()).length).to.be.greaterThan(before);
    expect((await verifyLog({ db: t.db, store })).firstBreak).to.equal(null);
  });

  it('looks at the log at most every 250 ms under a stream of appends, each look one read and one save', async () => {
    const reads = new CountedReads(store);
    const running = new LogCheckpointer({ db: t.db, store: reads.store, every, logger: createLogger('silent'), idlePollMs: 60_000 });
    await running.start();
    try {
      await new Promise((r) => setTimeout(r, 300));
      reads.count = 0;
      const started = Date.now();
      const checkpointsBefore = (await checkpoints()).length;
      for (let i = 0; i < 40; i++) await store.appendToStream('case-stream-of-appends', [newEvent('Noted', { i })], 'any');
      await new Promise((r) => setTimeout(r, 300));
      // A look that appended a checkpoint reads once more, to count it. Woken by each append and
      // reading until a page came back empty, it made two reads per append.
      const looks = Math.ceil((Date.now() - started) / 250) + 1;
      expect(reads.count).to.be.at.most(looks + (await checkpoints()).length - checkpointsBefore);
    } finally {
      await running.stop();
    }
    // Fewer looks, nothing missed: its saved state counts every event of the log.
    const saved = await t.db.query<{ events: string }>('SELECT events::text AS events FROM reactors.log_checkpointer');
    expect(Number(saved.rows[0]!.events)).to.equal((await store.readAll({ maxCount: 10_000 })).length);
  });

  it('leaves the read models alone: every projector passes over LogCheckpointed in a replay', async () => {
    const report = await replay({ db: t.db, store, projectors: allProjectors });
    expect(report.events).to.equal((await store.readAll({ maxCount: 10_000 })).length);
  });
});
