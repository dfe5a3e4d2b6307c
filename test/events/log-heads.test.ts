import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { LogHeads } from '../../src/events/log-heads.js';

/** An event of `streamId` at `revision` with a hash of its own: all LogHeads reads of it. */
const at = (streamId: string, revision: number): RecordedEvent =>
  ({ streamId, revision, metadata: { hash: randomBytes(32).toString('hex') } }) as RecordedEvent;

/** docs/audit.md's definition, written out: sha256 over "<stream id as JSON> <revision> <hash>\n", by stream id. */
function headsHashOf(heads: ReadonlyMap<string, { revision: number; hash: string }>): string {
  const hash = createHash('sha256');
  for (const id of [...heads.keys()].sort()) hash.update(`${JSON.stringify(id)} ${heads.get(id)!.revision} ${heads.get(id)!.hash}\n`);
  return hash.digest('hex');
}

describe('log heads: the summary a LogCheckpointed records', () => {
  it('is the sorted hash of every stream head, summary after summary, as streams appear and move between them', async () => {
    const heads = new LogHeads([['b-loaded', { revision: 4, hash: 'f'.repeat(64) }]], 5);
    const expected = new Map([['b-loaded', { revision: 4, hash: 'f'.repeat(64) }]]);
    // Ids that sort differently by code unit than by locale or length, and streams seen again later.
    const ids = ['a-2', 'a-10', 'B-1', 'c-\u00e9', 'c-\u{1F600}', 'c-\uFFFD', 'b-loaded', 'a-2'];
    let events = 5;
    for (const [round, id] of ids.entries()) {
      const e = at(id, (expected.get(id)?.revision ?? -1) + 1);
      heads.apply(e);
      expected.set(id, { revision: e.revision, hash: e.metadata.hash });
      events++;
      const summary = round % 2 === 0 ? heads.summary() : await heads.summaryInSlices();
      expect(summary).to.deep.equal({ events, streams: expected.size, headsHash: headsHashOf(expected) });
    }
  });

  it('in slices, gives the event loop its turn while it hashes a large log', async () => {
    const heads = new LogHeads();
    for (let i = 0; i < 10_000; i++) heads.apply(at(`s-${i}`, 0));
    let turns = 0;
    const count = () => {
      turns++;
      if (!done) setImmediate(count);
    };
    let done = false;
    setImmediate(count);
    const summary = await heads.summaryInSlices();
    done = true;
    expect(summary.streams).to.equal(10_000);
    expect(summary.headsHash).to.equal(heads.summary().headsHash);
    expect(turns).to.be.at.least(4);
  });
});
