import { expect } from 'chai';
import { runProjectionsCommand } from '../../src/cli/projections-command.js';
import { formatPosition } from '../../src/events/position.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { allProjectors } from '../../src/projections/index.js';
import { startTestService, type TestService } from '../api/support/service.js';
import { mainBackend } from '../support/databases.js';
import { newEvent, uniqueStream } from '../support/events.js';

describe(`§10.12 npm run projections -- status shows what is true (${mainBackend})`, function () {
  this.timeout(60_000);
  let s: TestService;
  before(async () => {
    s = await startTestService();
  });
  after(() => s.close());

  it('in inline mode every projector stands at the log head, as written with each append; one that follows the log reaches it', async () => {
    // What the CLI opens: the plain SQL store.
    const store = await SqlEventStore.open(s.db);
    const { position } = await s.store.appendToStream(uniqueStream(), [newEvent('Happened', {})], 'no_stream');
    const head = formatPosition((await store.headPosition()) ?? position);
    const followers = allProjectors.filter((p) => p.followsLog).map((p) => p.name);
    expect(followers, 'the events feed follows the log (R-FEED-06)').to.deep.equal(['events_feed']);
    const follows = (line: string) => followers.some((name) => line.startsWith(`${name} `));
    const status = async () =>
      (await runProjectionsCommand({ db: s.db, store, projectors: allProjectors }, { kind: 'status' })).split('\n');
    // It writes its move past events it ignores once the log goes quiet (engine.ts).
    let lines = await status();
    for (let i = 0; i < 100 && !lines.filter(follows).every((l) => l.includes(`position ${head} `)); i++) {
      await new Promise((r) => setTimeout(r, 50));
      lines = await status();
    }
    expect(lines).to.have.length(allProjectors.length);
    for (const line of lines) {
      const where = follows(line) ? `position ${head}` : `inline, at the log head ${head}`;
      expect(line).to.match(new RegExp(`^\\w+ +${where} +lag +0\\.0 s  ok$`));
      expect(line).not.to.contain('-1/-1');
    }
  });
});
