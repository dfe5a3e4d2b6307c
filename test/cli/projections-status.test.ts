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

  it('in inline mode every projector stands at the log head, as written with each append', async () => {
    // What the CLI opens: the plain SQL store.
    const store = await SqlEventStore.open(s.db);
    const { position } = await s.store.appendToStream(uniqueStream(), [newEvent('Happened', {})], 'no_stream');
    const head = formatPosition((await store.headPosition()) ?? position);
    const lines = (await runProjectionsCommand({ db: s.db, store, projectors: allProjectors }, { kind: 'status' })).split('\n');
    expect(lines).to.have.length(allProjectors.length);
    for (const line of lines) {
      expect(line).to.match(new RegExp(`^\\w+ +inline, at the log head ${head} +lag +0\\.0 s  ok$`));
      expect(line).not.to.contain('-1/-1');
    }
  });
});
