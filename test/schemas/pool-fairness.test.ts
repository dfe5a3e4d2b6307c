import { expect } from 'chai';
import type { JsonValue } from '../../src/events/envelope.js';
import { SchemaValidator, TIME_BUDGET_MESSAGE } from '../../src/schemas/index.js';
import { SCHEMA_BASE } from './support.js';

const BUDGET_MS = 600;
// Catastrophic backtracking: runs until its worker is killed.
const HOSTILE_SCHEMA: JsonValue = { type: 'string', pattern: '^(a+)+$' };
const HOSTILE_DATA = `${'a'.repeat(40)}b`;
const TIMED_OUT = { ok: false, code: 'SCHEMA_INVALID', message: TIME_BUDGET_MESSAGE, budgetExceeded: true };

describe('validation pool fairness (a flooding caller cannot starve the others)', function () {
  this.timeout(30_000);
  let validator: SchemaValidator;
  const hostile = (caller: string) => validator.validateWithSchema(HOSTILE_SCHEMA, HOSTILE_DATA, caller);

  beforeEach(async () => {
    validator = new SchemaValidator({ schemaBase: SCHEMA_BASE, budgetMs: BUDGET_MS, poolSize: 2, maxQueued: 3, maxPerCaller: 2 });
    await validator.ready();
  });
  afterEach(() => validator.close());

  it('one caller holds at most all workers but one: another caller is answered at once', async () => {
    const flood = [hostile('mallory'), hostile('mallory')];
    const started = Date.now();
    expect(await validator.validateWithSchema({ type: 'integer' }, 7, 'ann')).to.deep.equal({ ok: true });
    expect(Date.now() - started, 'answered while the flood still runs').to.be.below(BUDGET_MS);
    for (const r of await Promise.all(flood)) expect(r).to.deep.equal(TIMED_OUT);
  });

  it("counts a worker restarting after a caller overran it as that caller's: another caller still finds a ready worker", async () => {
    expect(await hostile('mallory')).to.deep.equal(TIMED_OUT);
    // Mallory's overrun costs one worker a restart; her next job must not take the other one.
    const next = hostile('mallory');
    const started = Date.now();
    expect(await validator.validateWithSchema({ type: 'integer' }, 7, 'ann')).to.deep.equal({ ok: true });
    expect(Date.now() - started, 'answered without waiting for the restart').to.be.below(250);
    expect(await next).to.deep.equal(TIMED_OUT);
  });

  it("refuses a caller's job beyond its share at once, without queueing it", async () => {
    const flood = [hostile('mallory'), hostile('mallory')];
    const started = Date.now();
    expect(await hostile('mallory')).to.deep.include({ ok: false, code: 'BUSY' });
    expect(Date.now() - started).to.be.below(BUDGET_MS / 2);
    await Promise.all(flood);
  });

  it('refuses at once when the queue is full, and answers queued jobs whose budget ran out while waiting without running them', async () => {
    const started = Date.now();
    const running = [hostile('a'), hostile('b')];
    const queued = ['c', 'd', 'e'].map((c) => hostile(c).then((r) => ({ r, ms: Date.now() - started })));
    expect(await hostile('f')).to.deep.include({ ok: false, code: 'BUSY', message: 'the validation queue is full' });
    expect(Date.now() - started).to.be.below(BUDGET_MS / 2);
    await Promise.all(running);
    for (const { r, ms } of await Promise.all(queued)) {
      expect(r).to.deep.equal(TIMED_OUT);
      // Waiting counted against the budget: not another full budget after the wait.
      expect(ms).to.be.below(BUDGET_MS + 500);
    }
  });
});
