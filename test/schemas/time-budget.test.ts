import { expect } from 'chai';
import type { JsonValue } from '../../src/events/envelope.js';
import { SchemaValidator, TIME_BUDGET_MESSAGE } from '../../src/schemas/index.js';
import type { ValidationResult } from '../../src/schemas/index.js';
import { core, SCHEMA_BASE } from './support.js';

const BUDGET_MS = 600;
// Catastrophic backtracking: (a+)+ on 40 a's and a b tries 2^40 ways before failing.
const HOSTILE_SCHEMA: JsonValue = { type: 'string', pattern: '^(a+)+$' };
const HOSTILE_DATA = `${'a'.repeat(40)}b`;

async function timed(run: () => Promise<ValidationResult>): Promise<{ result: ValidationResult; ms: number; at: number }> {
  const start = Date.now();
  const result = await run();
  return { result, ms: Date.now() - start, at: Date.now() };
}

describe('time budget (spec 4.2: validation time grows with complexity; a hostile schema must not stall others)', function () {
  this.timeout(20_000);
  let validator: SchemaValidator;
  /** Validation for one caller; hostile schemas come from callers of their own, as in the service. */
  const validate = (schema: JsonValue, data: JsonValue, caller = 'ann') => validator.validateWithSchema(schema, data, caller);

  before(async () => {
    validator = new SchemaValidator({ schemaBase: SCHEMA_BASE, budgetMs: BUDGET_MS, poolSize: 2 });
    // Both workers up before the clock matters.
    await validator.ready();
  });

  // A killed worker's replacement must be up before the next test's budget starts counting.
  beforeEach(() => validator.ready());
  after(() => validator.close());

  it('answers a catastrophic pattern with a clear error within the budget, while other validations keep answering', async () => {
    const hostile = timed(() => validate(HOSTILE_SCHEMA, HOSTILE_DATA, 'mallory'));
    const others: Array<{ ms: number; at: number; result: ValidationResult }> = [];
    for (let i = 0; i < 5; i++) others.push(await timed(() => validate({ type: 'object', required: ['name'] }, { name: `n${i}` })));
    const slow = await hostile;

    expect(slow.result).to.deep.equal({ ok: false, code: 'SCHEMA_INVALID', message: TIME_BUDGET_MESSAGE, budgetExceeded: true });
    // Bounds, not speed: it waited for its budget and did not run on unchecked (a loaded CI
    // machine may be slow, so the upper bound is loose).
    expect(slow.ms)
      .to.be.at.least(BUDGET_MS - 50)
      .and.below(BUDGET_MS + 5000);
    for (const other of others) {
      expect(other.result).to.deep.equal({ ok: true });
      expect(other.at, 'answered before the hostile validation gave up').to.be.at.most(slow.at);
    }
  });

  it('replaces the killed worker: the pool keeps its size and answers as before', async () => {
    await validate(HOSTILE_SCHEMA, HOSTILE_DATA);
    await validate(HOSTILE_SCHEMA, HOSTILE_DATA);
    // The replacements start before the budget of the next jobs matters (waiting counts against it).
    await validator.ready();
    const results = await Promise.all([1, 2, 3, 4].map((n) => validate({ maximum: 2 }, n)));
    expect(results.map((r) => r.ok)).to.deep.equal([true, true, false, false]);
  });

  it('keeps answering built-in validations in-process while both workers are busy with hostile schemas', async () => {
    const hostile = [validate(HOSTILE_SCHEMA, HOSTILE_DATA, 'mallory'), validate(HOSTILE_SCHEMA, HOSTILE_DATA, 'eve')];
    const started = Date.now();
    expect(validator.validateWithBuiltin(core('PersonBirth'), { birthDate: '1990-01-01' })).to.deep.equal({ ok: true });
    // Synchronous and in-process: it cannot be queued behind the busy workers.
    expect(Date.now() - started).to.be.below(BUDGET_MS);
    for (const r of await Promise.all(hostile)) expect(r).to.deep.include({ message: TIME_BUDGET_MESSAGE });
  });

  it('judges huge uniqueItems data in linear time instead of timing out', async () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `item ${i}` }));
    // A quadratic check would run out of the budget and answer the budget error instead.
    const { result } = await timed(() => validate({ type: 'array', uniqueItems: true }, items));
    expect(result).to.deep.equal({ ok: true });
    const duplicated = await validate({ uniqueItems: true }, [...items, { name: 'item 7', id: 7 }]);
    expect(duplicated).to.deep.include({ code: 'DATA_INVALID' });
  });

  it('answers deep nesting with a clear error rather than a crash', async () => {
    let schema: JsonValue = { type: 'integer' };
    for (let i = 0; i < 50_000; i++) schema = { items: schema };
    const deepSchema = await validate(schema, []);
    expect(deepSchema).to.deep.include({ ok: false, code: 'SCHEMA_INVALID', budgetExceeded: true });

    let data: JsonValue = 1;
    for (let i = 0; i < 50_000; i++) data = [data];
    const deepData = await validate({ items: { $ref: '#' } }, data);
    expect(deepData).to.deep.include({ ok: false, code: 'SCHEMA_INVALID', budgetExceeded: true });

    let fine: JsonValue = 1;
    for (let i = 0; i < 500; i++) fine = [fine];
    expect(await validate({ items: { $ref: '#' }, unevaluatedItems: false }, fine)).to.deep.equal({ ok: true });
  });

  it('refuses a schema that refers to itself without consuming data', async () => {
    const result = await validate({ $ref: '#' }, 1);
    expect(result).to.deep.include({ ok: false, code: 'SCHEMA_INVALID' });
  });
});
