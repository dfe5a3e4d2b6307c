import { expect } from 'chai';
import { EMMETT_APPEND, OURS_APPEND, peerRows, type PeerRound } from '../../bench/peer.js';
import type { WriterRun } from '../../bench/peer-writer.js';

/** Issue 48: appends at 8 writers ≥ 2× Emmett's, as the median of three alternating runs in one sitting. */
describe('bench peer rows: the median of three alternating runs (issue 48)', () => {
  const run = (writers: number, perSecond: number, errors = 0, firstError?: string): WriterRun => ({
    writers,
    count: perSecond * 5,
    errors,
    seconds: 5,
    p50ms: 1000 / perSecond,
    p99ms: 4000 / perSecond,
    ...(firstError === undefined ? {} : { firstError }),
  });
  const round = (emmett: [number, number], ours: [number, number]): PeerRound => ({
    emmett: [run(1, emmett[0]), run(8, emmett[1])],
    ours: [run(1, ours[0]), run(8, ours[1])],
  });

  it("shows the round whose ratio is the median, each writer count its own, and lists every round's ratio", () => {
    const rows = peerRows([round([700, 2000], [1000, 4200]), round([800, 2100], [1000, 3990]), round([750, 2000], [1050, 3700])]);
    expect(rows.map((r) => [r.name, r.clients, r.perSecond])).to.deep.equal([
      [EMMETT_APPEND, 1, 750],
      [EMMETT_APPEND, 8, 2100],
      [OURS_APPEND, 1, 1050],
      [OURS_APPEND, 8, 3990],
    ]);
    const ours8 = rows[3]!;
    expect(ours8.ratio).to.equal('1.90× Emmett');
    expect(ours8.note).to.equal('pool 10; median of 3 alternating runs: 2.10×, 1.90×, 1.85×');
    expect(rows[2]!.ratio).to.equal('1.40× Emmett');
  });

  it("counts every round's errors in its store's rows, and names the first one, whichever round it came from", () => {
    const failing: PeerRound = {
      emmett: [run(1, 700), run(8, 2000, 3, 'connection refused')],
      ours: [run(1, 1000), run(8, 4400, 2, 'timeout')],
    };
    const rows = peerRows([round([700, 2000], [1000, 4000]), failing, round([700, 2000], [1000, 3000])]);
    const [emmett8, ours8] = [rows[1]!, rows[3]!];
    expect(ours8.perSecond).to.equal(4000);
    expect([emmett8.errors, ours8.errors]).to.deep.equal([3, 2]);
    expect(emmett8.note).to.equal('pool 10; first error: connection refused');
    expect(ours8.note).to.equal('pool 10; median of 3 alternating runs: 2.00×, 2.20×, 1.50×; first error: timeout');
  });
});
