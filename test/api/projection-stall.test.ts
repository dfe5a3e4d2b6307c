import { expect } from 'chai';
import type { Decider } from '../../src/commands/decider.js';
import { handle } from '../../src/commands/shell.js';
import { runProjectionsCommand, parsePosition, projectionsStatus } from '../../src/cli/projections-command.js';
import { eventDecoder, streamOf } from '../../src/events/decoder.js';
import { operationsStreams } from '../../src/events/operations-events.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { allProjectors, replay } from '../../src/projections/index.js';
import { SkipRefusedError } from '../../src/projections/skip.js';
import { mainBackend } from '../support/databases.js';
import { client } from '../support/http.js';
import { uniqueStream } from '../support/events.js';
import { startTestService, type TestService } from './support/service.js';

type Noted = { type: 'Noted'; data: { note: string } };
const noting: Decider<null, string, Noted> = {
  initialState: null,
  evolve: (s) => s,
  decide: (_s, note) => [{ type: 'Noted', data: { note } }],
};
const notedEvents = eventDecoder<Noted>('note', { Noted: { version: 1 } });

type StalledCheck = { status: string; reason?: string; stalled?: Record<string, { status: string; position: string; errorClass: string }> };

describe(`a read model stalled on an event it cannot apply (contract §9, ${mainBackend})`, function () {
  this.timeout(120_000);
  let s: TestService;
  let http: ReturnType<typeof client>;
  // What the CLI opens: the plain SQL store (the service's is wrapped for metrics).
  let cliStore: SqlEventStore;
  const deps = () => ({ db: s.db, store: cliStore, projectors: allProjectors });
  const context = {
    occurredAt: new Date().toISOString(),
    actor: { kind: 'system' as const, id: 'test' },
    correlationId: 'c',
    causationId: null,
  };

  before(async () => {
    s = await startTestService({
      projections: 'async',
      // A command through the real shell: append, then wait for the read models like every command.
      routes: (app) =>
        app.post('/test/notes/:category', async (req, res) => {
          const waitFor = (p: Parameters<typeof s.engine.waitFor>[0], eventTypes: readonly string[]) => s.engine.waitFor(p, { eventTypes });
          await handle({ store: s.store, waitFor }, streamOf(notedEvents, uniqueStream(req.params.category)), noting, 'hello', { context });
          res.status(201).json({ ok: true });
        }),
    });
    http = client(s.url);
    cliStore = await SqlEventStore.open(s.db);
  });
  after(async () => {
    await s.close();
  });

  it('stops at the event, shows it in /readyz, /metrics and at once to waiting commands; a recorded skip moves it past; replay agrees', async () => {
    // Given a read model that cannot take events of the stream category "poison" (a deterministic SQL error).
    await s.db.query(`ALTER TABLE rm.stream_heads ADD CONSTRAINT no_poison CHECK (category <> 'poison')`);

    // When a command appends such an event, it answers 503 projection_stalled, well before the 10 s timeout.
    let started = Date.now();
    const first = await http.post('/test/notes/poison');
    expect(first.status).to.equal(503);
    expect(first.body.code).to.equal('projection_stalled');
    expect(Date.now() - started).to.be.below(8000);

    // Then /readyz names the projector, the position and the error class, never the message.
    const ready = await http.get('/readyz');
    expect(ready.status).to.equal(503);
    const projections = (ready.body.checks as Record<string, StalledCheck>).projections!;
    expect(projections.reason).to.equal('stalled');
    const stall = projections.stalled!.stream_heads!;
    expect(stall).to.include({ status: 'stalled', errorClass: 'sqlstate_23514' });
    expect(JSON.stringify(ready.body)).not.to.contain('no_poison');
    const position = parsePosition(stall.position);

    // ...and so does the metric.
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    expect(metrics).to.contain(`projection_stalled{projector="stream_heads",position="${stall.position}",error_class="sqlstate_23514"} 1`);

    // A later command that needs the same read model is answered at once.
    started = Date.now();
    const later = await http.post('/test/notes/fine');
    expect(later.status).to.equal(503);
    expect(later.body.code).to.equal('projection_stalled');
    expect(Date.now() - started).to.be.below(2000);

    // A skip at another position is refused, and changes nothing.
    const wrong = { ...position, prepare: position.prepare + 1000n };
    const refused = await runProjectionsCommand(deps(), {
      kind: 'skip',
      projector: 'stream_heads',
      position: wrong,
      reason: 'wrong',
      by: 'tester',
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).to.be.instanceOf(SkipRefusedError);
    expect(await s.store.readStream(operationsStreams.projections.id)).to.have.length(0);

    // When the operator skips exactly that event...
    await runProjectionsCommand(deps(), { kind: 'skip', projector: 'stream_heads', position, reason: 'poison test event', by: 'tester' });

    // ...the skip is in the log, with who, why and which event...
    const [skip, ...none] = await s.store.readStream(operationsStreams.projections.id);
    expect(none).to.have.length(0);
    expect(skip!.type).to.equal('ProjectorEventSkipped');
    expect(skip!.data).to.include({
      projector: 'stream_heads',
      position: stall.position,
      by: 'tester',
      reason: 'poison test event',
      errorClass: 'sqlstate_23514',
      skippedEventType: 'Noted',
    });

    // ...and the projector resumes: later events are applied and everything is healthy again.
    expect((await http.post('/test/notes/fine')).status).to.equal(201);
    // Read models that had nothing to do with the skipped event may still be catching up from
    // their retry backoff (a CI run saw 40 s): ready within a minute, and never stalled.
    let healthy = await http.get('/readyz');
    for (const deadline = Date.now() + 60_000; healthy.status !== 200 && Date.now() < deadline;) {
      expect(JSON.stringify(healthy.body)).not.to.contain('"stalled"');
      await new Promise((r) => setTimeout(r, 500));
      healthy = await http.get('/readyz');
    }
    expect(healthy.status, JSON.stringify(healthy.body)).to.equal(200);
    expect((await projectionsStatus(deps())).every((r) => r.stalled === null)).to.equal(true);
    expect(await (await fetch(`${s.url}/metrics`)).text()).not.to.contain('projection_stalled{');

    // A rebuild from the log passes over the same event: rebuilt equals live.
    const heads = () => s.db.query('SELECT stream_id, category, revision, event_count FROM rm.stream_heads ORDER BY stream_id');
    const live = (await heads()).rows;
    expect(live.map((r) => r.category)).not.to.include('poison');
    await replay(deps());
    expect((await heads()).rows).to.deep.equal(live);
  });
});
