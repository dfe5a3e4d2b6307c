import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { RssSamples } from '../../bench/rss-samples.js';

const MB = 2 ** 20;

/** Issue 16, soak: a window's RSS is the median of its samples, not where the heap was at its end. */
describe('soak RSS samples: the median and range of each window (issue 16)', () => {
  it('gives each window the median, lowest and highest of the samples taken in it, and only those', async () => {
    // A heap's sawtooth: climbs between collections, drops after each.
    const sawtooth = [200, 260, 320, 210, 270, 330, 205];
    const taken: number[] = [];
    const samples = new RssSamples(async () => {
      const mb = sawtooth[taken.length % sawtooth.length]!;
      taken.push(mb);
      return mb * MB;
    }, 5);
    try {
      await sleep(60);
      const first = await samples.window();
      const inFirst = [...taken].sort((a, b) => a - b);
      expect(inFirst.length).to.be.greaterThan(3);
      expect(first).to.deep.equal({ medianMb: inFirst[Math.floor(inFirst.length / 2)], minMb: inFirst[0], maxMb: inFirst.at(-1) });

      const before = taken.length;
      const second = await samples.window();
      expect(second.minMb).to.equal(Math.min(...taken.slice(before)));
      expect(second.maxMb).to.equal(Math.max(...taken.slice(before)));
    } finally {
      samples.stop();
    }
  });

  it('fails a window whose closing sample cannot be read, and leaves out a missed sample in between', async () => {
    let gone = false;
    let calls = 0;
    const samples = new RssSamples(async () => {
      calls++;
      if (gone || calls === 2) throw new Error('no such process');
      return 100 * MB;
    }, 5);
    try {
      await sleep(30);
      expect(await samples.window()).to.deep.equal({ medianMb: 100, minMb: 100, maxMb: 100 });
      gone = true;
      await samples.window().then(
        () => expect.fail('a window without its closing sample'),
        (e: unknown) => expect(String(e)).to.include('no such process'),
      );
    } finally {
      samples.stop();
    }
  });
});
