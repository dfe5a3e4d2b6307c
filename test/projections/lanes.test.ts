import { expect } from 'chai';
import { writeInLanes, type Lanes } from '../../src/projections/lanes.js';
import { until } from '../support/until.js';

/** Items 0 to n-1, each read after a tick; `log` records each read. */
function work(n: number, log: string[]) {
  let read = 0;
  return async () => {
    await new Promise((r) => setImmediate(r));
    if (read === n) return null;
    log.push(`read ${read}`);
    return read++;
  };
}

/** Two writers, room for two items ahead, unless a test says otherwise. */
const inLanes = (o: Pick<Lanes<number>, 'lanes' | 'next' | 'write'> & Partial<Lanes<number>>) =>
  writeInLanes({ writers: 2, ahead: 2, written: () => undefined, ...o });

describe('writing in lanes (a replay’s read models, docs/decisions.md "Read models")', () => {
  it('every lane writes every item in its order, and an item counts as written, in order, once every lane has written it', async () => {
    const writes: [number, number][] = [];
    const written: number[] = [];
    await inLanes({
      lanes: 3,
      next: work(6, []),
      write: async (lane, item) => {
        await new Promise((r) => setTimeout(r, ((lane * 7 + item * 3) % 5) + 1));
        writes.push([lane, item]);
      },
      written: (item) => written.push(item),
    });
    for (const lane of [0, 1, 2]) expect(writes.filter(([l]) => l === lane).map(([, i]) => i)).to.deep.equal([0, 1, 2, 3, 4, 5]);
    expect(written).to.deep.equal([0, 1, 2, 3, 4, 5]);
  });

  it('writes at most `writers` items at once, and a lane behind holds the others only once `ahead` items are read ahead of it', async () => {
    const log: string[] = [];
    let atOnce = 0;
    let most = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const done = inLanes({
      lanes: 3,
      writers: 2,
      ahead: 2,
      next: work(5, log),
      write: async (lane, item) => {
        most = Math.max(most, ++atOnce);
        log.push(`lane ${lane} ${item}`);
        if (lane === 0 && item === 0) await held;
        else await new Promise((r) => setImmediate(r));
        atOnce--;
      },
    });
    // Lane 0 is held on item 0: the other writer takes lanes 1 and 2 through items 0 and 1, and no more is read.
    await until(() => log.includes('lane 2 1'));
    await new Promise((r) => setTimeout(r, 20));
    expect(log.filter((l) => l.startsWith('read'))).to.deep.equal(['read 0', 'read 1']);
    expect(log.filter((l) => l.startsWith('lane'))).to.have.members(['lane 0 0', 'lane 1 0', 'lane 2 0', 'lane 1 1', 'lane 2 1']);
    release();
    await done;
    expect(log.filter((l) => l.startsWith('lane'))).to.have.length(15);
    expect(most).to.equal(2);
  });

  it('after a failed write no write starts, and the failure is thrown once the write under way has ended', async () => {
    const log: string[] = [];
    const failure = await inLanes({
      lanes: 2,
      next: work(10, log),
      write: async (lane, item) => {
        log.push(`start ${lane} ${item}`);
        if (lane === 1 && item === 2) throw new Error('lane 1 refused item 2');
        await new Promise((r) => setTimeout(r, 5));
        log.push(`end ${lane} ${item}`);
      },
      written: (item) => log.push(`written ${item}`),
    }).catch((e: unknown) => e);
    expect((failure as Error).message).to.equal('lane 1 refused item 2');
    const failedAt = log.indexOf('start 1 2');
    expect(log.slice(failedAt + 1).filter((l) => l.startsWith('start'))).to.deep.equal([]);
    expect(log.filter((l) => l.startsWith('start')).length).to.equal(log.filter((l) => l.startsWith('end')).length + 1);
    expect(log).to.not.include('written 2');
  });

  it('a failed read is thrown once the write under way has ended, and nothing after it is written', async () => {
    const log: string[] = [];
    const failure = await inLanes({
      lanes: 2,
      next: async () => {
        if (log.includes('read 0')) {
          log.push('read 1 failed');
          throw new Error('the log did not answer');
        }
        log.push('read 0');
        return 0;
      },
      write: async (lane, item) => {
        log.push(`start ${lane} ${item}`);
        await new Promise((r) => setTimeout(r, 20));
        log.push(`end ${lane} ${item}`);
      },
      written: (item) => log.push(`written ${item}`),
    }).catch((e: unknown) => e);
    expect((failure as Error).message).to.equal('the log did not answer');
    expect(log.slice(0, 2)).to.deep.equal(['read 0', 'read 1 failed']);
    expect(log.slice(2).sort()).to.deep.equal(['end 0 0', 'end 1 0', 'start 0 0', 'start 1 0', 'written 0'].sort());
  });

  it('without lanes every item read counts as written, in order', async () => {
    const written: number[] = [];
    await inLanes({
      lanes: 0,
      next: work(5, []),
      write: async () => undefined,
      written: (i) => written.push(i),
    });
    expect(written).to.deep.equal([0, 1, 2, 3, 4]);
  });
});
