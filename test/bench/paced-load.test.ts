import { expect } from 'chai';
import type { Script } from '../../bench/load.js';
import { pacedWindows, Schedule, type Lane, type PacedWindow, type Send } from '../../bench/paced-load.js';

/** A script that counts the requests it sent. */
function counted(): Script & { sent: number } {
  const script = {
    sent: 0,
    next: () => {
      script.sent++;
      return { method: 'GET' as const, path: '/' };
    },
  };
  return script;
}

async function run(schedule: Schedule, lanes: readonly Lane[], send: Send): Promise<PacedWindow[]> {
  const windows: PacedWindow[] = [];
  for await (const w of pacedWindows(schedule, lanes, send)) windows.push(w);
  return windows;
}

/** The most requests between two of the lane's, over the first `n`. */
function widestGap(schedule: Schedule, lane: number, n: number): number {
  let last = -1;
  let widest = 0;
  for (let k = 0; k < n; k++) {
    if (schedule.laneOf(k) !== lane) continue;
    if (last >= 0) widest = Math.max(widest, k - last);
    last = k;
  }
  return widest;
}

describe('paced load: the soak sends on a fixed schedule whatever the answers (issue 16)', () => {
  it('gives each kind of call its share, spread evenly, at the rate, and no stream more requests than its records', async () => {
    const shares = [20, 15, 10, 5, 25, 20, 5];
    const schedule = new Schedule(shares, { rate: 400, windows: 2, windowSeconds: 0.5 });
    const scripts = shares.map((_, lane) => Array.from({ length: schedule.streams(lane) }, counted));
    const sentAt: number[] = [];
    const send: Send = async () => {
      sentAt.push(performance.now());
      return { status: 200, text: '{}' };
    };
    const lanes = scripts.map((s, lane): Lane => ({ name: String(lane), scripts: s }));
    const windows = await run(schedule, lanes, send);

    expect(windows.map((w) => [w.window, w.requests, w.errors])).to.deep.equal([
      [1, 200, 0],
      [2, 200, 0],
    ]);
    shares.forEach((share, lane) => {
      expect(scripts[lane]!.reduce((n, s) => n + s.sent, 0)).to.equal((400 * share) / 100);
      for (const s of scripts[lane]!) expect(s.sent).to.be.at.most(schedule.perStream(lane));
      expect(widestGap(schedule, lane, 400)).to.be.at.most(Math.ceil(100 / share) + 1);
    });
    // Paced, not all at once: the last request left no sooner than a second after the first.
    expect(sentAt[sentAt.length - 1]! - sentAt[0]!).to.be.at.least(950);
  });

  it('counts the wait behind a slow answer in the latency of the requests due meanwhile', async () => {
    // Five a second is one stream's pace: a single stream, whose answers take longer than the 200 ms between two requests.
    const schedule = new Schedule([1], { rate: 5, windows: 1, windowSeconds: 1 });
    expect(schedule.streams(0)).to.equal(1);
    const send: Send = async () => {
      await new Promise((r) => setTimeout(r, 300));
      return { status: 200, text: '{}' };
    };
    const [window] = await run(schedule, [{ name: 'slow', scripts: [counted()] }], send);
    // Request k is due at 200k ms and answered at 300(k + 1): the fifth waited 400 ms for its turn.
    expect(window!.requests).to.equal(5);
    expect(window!.p50ms).to.be.within(480, 800);
    expect(window!.maxMs).to.be.within(680, 1000);
  });

  it('counts refusals and failed calls as errors, with what they were', async () => {
    const schedule = new Schedule([1, 1], { rate: 10, windows: 1, windowSeconds: 1 });
    const lanes: Lane[] = [
      { name: 'correct', scripts: [counted()] },
      { name: 'user.me', scripts: [counted()] },
    ];
    let n = 0;
    const send: Send = async (call) => {
      if (n++ === 0) return { status: 409, text: JSON.stringify({ code: 'version_conflict' }) };
      if (n === 2) throw new Error('socket hang up');
      return { status: 200, text: call.path };
    };
    const [window] = await run(schedule, lanes, send);
    expect(window).to.deep.include({ requests: 10, errors: 2, perSecond: 8 });
    expect(window!.failures).to.equal('1× 409 version_conflict (correct), 1× socket hang up (user.me)');
  });
});
