import { expect } from 'chai';
import { compiler } from './support.js';
import { RandomSchemas } from './random-schemas.js';

// Ajv judges most schemas; outside the official suite its verdicts are checked against the direct
// evaluator, which passes the whole suite on its own. A disagreement is a wrong verdict of one.
describe('Ajv and the direct evaluator agree on random schemas (never a wrong verdict)', function () {
  this.timeout(30_000);

  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: 400 schemas, 8 instances each`, () => {
      const random = new RandomSchemas(seed);
      const ajv = compiler({ cacheSize: 10 });
      const direct = compiler({ evaluatorOnly: true, cacheSize: 10 });
      const disagreements: string[] = [];
      let judged = 0;
      for (let i = 0; i < 400; i++) {
        const schema = random.schema();
        const compiled = ajv.compile(schema);
        if ('ok' in compiled || compiled.engine !== 'ajv') continue;
        for (let j = 0; j < 8; j++) {
          const data = random.value();
          const verdicts = [ajv.validate(schema, data).ok, direct.validate(schema, data).ok];
          judged++;
          if (verdicts[0] !== verdicts[1])
            disagreements.push(`${JSON.stringify(schema)} on ${JSON.stringify(data)}: ajv ${verdicts[0]}, evaluator ${verdicts[1]}`);
        }
      }
      expect(judged).to.be.above(2000);
      expect(disagreements).to.deep.equal([]);
    });
  }
});
