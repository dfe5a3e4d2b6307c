import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { allProjectors } from '../../src/projections/index.js';
import { tablesOf } from '../../src/projections/projector.js';

/**
 * An append joins the inline read models' statements into one (joinedStatements), where none sees
 * another's writes, and a replay writes each read model on a lane of its own, committed apart: so
 * each reads and writes only its own tables (docs/decisions.md, "Read models").
 */
describe('read models: each reads and writes only its own tables', () => {
  const owner = new Map(allProjectors.flatMap((p) => [...tablesOf(p)].map((table) => [table, p.name] as const)));
  for (const p of allProjectors) {
    it(`${p.name} names no other read model's table in its SQL`, () => {
      const dir = new URL(`../../src/projections/${p.name.replaceAll('_', '-')}/`, import.meta.url);
      const source = readdirSync(dir)
        .filter((f) => f.endsWith('.ts'))
        .map((f) => readFileSync(new URL(f, dir), 'utf8'))
        .join('\n');
      const sql = /\b(?:FROM|JOIN|INTO|UPDATE|USING)\s+([a-z_][a-z0-9_]*)\b|\b(?:insertInto|updateOf)\('([a-z_][a-z0-9_]*)'/g;
      const named = [...source.matchAll(sql)].map((m) => (m[1] ?? m[2])!);
      const others = named.filter((table) => owner.has(table) && owner.get(table) !== p.name);
      expect(others, `tables of other read models in ${p.name}`).to.deep.equal([]);
      expect(tablesOf(p).size, `${p.name}'s own tables`).to.be.greaterThan(0);
    });
  }
});
