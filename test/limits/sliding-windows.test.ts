import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { SlidingWindows, type Limit } from '../../src/limits/sliding-windows.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';

const MINUTE = 60_000;

/** The sliding windows behind the login and invitation limits (R-AUTH-06, R-LIM-07): a call waits for the max-th newest call to leave. */
describe(`sliding-window limits (${mainBackend})`, function () {
  this.timeout(30_000);
  let test: TestDatabase;
  let windows: SlidingWindows;

  before(async () => {
    test = await openTestDatabase();
    windows = await SlidingWindows.open(test.db, randomBytes(32));
  });
  after(() => test.drop());

  const take = (limit: Limit, at: Date) => test.db.transaction((tx) => windows.take(tx, [limit], randomUUID(), at));

  it('admits max calls in a window, then answers Retry-After from the max-th newest call, not the newest', async () => {
    const limit: Limit = { bucket: `b-${randomUUID()}`, max: 3, windowMs: 60 * MINUTE };
    const start = Date.parse('2026-11-26T12:00:00Z');
    // Four calls ten minutes apart: the first leaves the window at 13:00, the second at 13:10.
    for (const [i, minutes] of [0, 10, 20].entries()) {
      expect(await take(limit, new Date(start + minutes * MINUTE)), `call ${i + 1}`).to.equal(null);
    }
    const blocked = await take(limit, new Date(start + 30 * MINUTE));
    expect(blocked).to.deep.equal({ limit, retryAfter: 30 * 60 });
    // At 13:00 the first call left: room for one, and the next waits for the second to leave.
    expect(await take(limit, new Date(start + 60 * MINUTE))).to.equal(null);
    expect(await take(limit, new Date(start + 61 * MINUTE))).to.deep.equal({ limit, retryAfter: 9 * 60 });
  });

  it('a limit far above the calls made admits them all', async () => {
    const limit: Limit = { bucket: `b-${randomUUID()}`, max: 1_000_000_000, windowMs: 60 * MINUTE };
    const at = new Date();
    for (let i = 0; i < 5; i++) expect(await take(limit, at)).to.equal(null);
  });

  it('with several limits, counts the call against each and answers the one that keeps it out longest', async () => {
    const hourly: Limit = { bucket: `h-${randomUUID()}`, max: 2, windowMs: 60 * MINUTE };
    const daily: Limit = { bucket: `d-${randomUUID()}`, max: 3, windowMs: 24 * 60 * MINUTE };
    const start = Date.parse('2026-11-26T12:00:00Z');
    const at = (minutes: number) => new Date(start + minutes * MINUTE);
    const both = (minutes: number) => test.db.transaction((tx) => windows.take(tx, [hourly, daily], randomUUID(), at(minutes)));
    expect(await both(0)).to.equal(null);
    expect(await both(10)).to.equal(null);
    // The hourly limit is full until 13:00.
    expect(await both(20)).to.deep.equal({ limit: hourly, retryAfter: 40 * 60 });
    // At 13:00 the hourly limit has room again, and the daily one takes its third call.
    expect(await both(60)).to.equal(null);
    // Both are full now: the daily one until 12:00 the next day, the hourly until 13:10.
    expect(await both(61)).to.deep.equal({ limit: daily, retryAfter: (24 * 60 - 61) * 60 });
  });
});
