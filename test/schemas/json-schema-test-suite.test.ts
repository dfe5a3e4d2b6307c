import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonValue } from '../../src/events/envelope.js';
import { SchemaCompiler } from '../../src/schemas/compiler.js';
import type { Schema } from '../../src/schemas/dialect.js';
import { KNOWN_WRONG_VERDICTS, MAX_KNOWN_WRONG_VERDICTS } from './known-wrong-verdicts.js';
import { knownSchemas } from './support.js';

// The official suite's data, pinned and vendored with its LICENSE (see its PINNED file).
const SUITE = fileURLToPath(new URL('../fixtures/JSON-Schema-Test-Suite/', import.meta.url));
const TESTS = join(SUITE, 'tests', 'draft2020-12');

/** optional/format files run: the spec's four, and every other format the service asserts. */
const OPTIONAL_FORMATS = [
  'date',
  'date-time',
  'email',
  'uri',
  'time',
  'uri-reference',
  'uuid',
  'ipv4',
  'ipv6',
  'json-pointer',
  'relative-json-pointer',
  'regex',
];

/** Required files whose expectations treat formats or content as annotations: run that way. */
const AS_ANNOTATIONS: Record<string, { assertFormats?: false; assertContent?: false; why: string }> = {
  'format.json': { assertFormats: false, why: 'expects format as an annotation (format-annotation vocabulary)' },
  'content.json': { assertContent: false, why: 'expects content keywords as annotations' },
};

type TestCase = { description: string; data: JsonValue; valid: boolean };
type Group = { description: string; schema: JsonValue; tests: TestCase[] };
type Row = { file: string; passed: number; wrong: string[]; refused: number; refusedWhy: string[]; evaluatorWrong: string[] };

function remotes(): Array<[string, Schema]> {
  const root = join(SUITE, 'remotes');
  const out: Array<[string, Schema]> = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push([`http://localhost:1234/${relative(root, path)}`, JSON.parse(readFileSync(path, 'utf8')) as Schema]);
    }
  };
  walk(root);
  return out;
}

function runFile(file: string, known: Map<string, Schema>): Row {
  const mode = AS_ANNOTATIONS[file] ?? {};
  const routed = new SchemaCompiler({ external: known, ...mode });
  const direct = new SchemaCompiler({ external: known, ...mode, evaluatorOnly: true });
  const row: Row = { file, passed: 0, wrong: [], refused: 0, refusedWhy: [], evaluatorWrong: [] };
  const groups = JSON.parse(readFileSync(join(TESTS, file), 'utf8')) as Group[];
  for (const group of groups) {
    const compiled = routed.compile(group.schema);
    if ('ok' in compiled) {
      row.refused += group.tests.length;
      row.refusedWhy.push(`${group.description}: ${compiled.code} ${compiled.message}`);
      continue;
    }
    for (const test of group.tests) {
      const key = `${file} :: ${group.description} :: ${test.description}`;
      if (routed.validate(group.schema, test.data).ok === test.valid) row.passed++;
      else row.wrong.push(key);
      if (direct.validate(group.schema, test.data).ok !== test.valid) row.evaluatorWrong.push(key);
    }
  }
  return row;
}

describe('JSON-Schema-Test-Suite draft2020-12, through the service validator in-process', function () {
  this.timeout(60_000);
  const rows: Row[] = [];
  const files = existsSync(TESTS)
    ? [
        ...readdirSync(TESTS)
          .filter((f) => f.endsWith('.json'))
          .sort(),
        ...OPTIONAL_FORMATS.map((f) => `optional/format/${f}.json`),
      ]
    : [];
  let known: Map<string, Schema>;

  before(() => {
    expect(existsSync(TESTS), `the pinned suite is missing at ${TESTS}`).to.equal(true);
    known = knownSchemas(remotes());
  });

  for (const file of files) {
    it(`${file}${AS_ANNOTATIONS[file] ? ` (${AS_ANNOTATIONS[file]?.why})` : ''}`, () => {
      const row = runFile(file, known);
      rows.push(row);
      const recorded = new Set(KNOWN_WRONG_VERDICTS.filter((k) => k.file === file).map((k) => `${k.file} :: ${k.group} :: ${k.test}`));
      expect(
        row.wrong.filter((w) => !recorded.has(w)),
        'new wrong verdicts',
      ).to.deep.equal([]);
      expect(
        [...recorded].filter((r) => !row.wrong.includes(r)),
        'recorded wrong verdicts that now pass: remove them',
      ).to.deep.equal([]);
      expect(row.evaluatorWrong, 'the direct evaluator alone answers wrongly').to.deep.equal([]);
    });
  }

  it(`records at most ${MAX_KNOWN_WRONG_VERDICTS} wrong verdicts, each with its reason`, () => {
    expect(KNOWN_WRONG_VERDICTS.length).to.be.at.most(MAX_KNOWN_WRONG_VERDICTS);
    for (const k of KNOWN_WRONG_VERDICTS) expect(k.reason.trim()).to.not.equal('');
  });

  after(() => printTable(rows));
});

function printTable(rows: readonly Row[]): void {
  if (rows.length === 0) return;
  const width = Math.max(...rows.map((r) => r.file.length));
  const lines = [`${'file'.padEnd(width)}  passed  wrong  refused`];
  for (const r of rows)
    lines.push(
      `${r.file.padEnd(width)}  ${String(r.passed).padStart(6)}  ${String(r.wrong.length).padStart(5)}  ${String(r.refused).padStart(7)}`,
    );
  const total = (pick: (r: Row) => number) => rows.reduce((n, r) => n + pick(r), 0);
  lines.push(
    [
      'total'.padEnd(width),
      String(total((r) => r.passed)).padStart(6),
      String(total((r) => r.wrong.length)).padStart(5),
      String(total((r) => r.refused)).padStart(7),
    ].join('  '),
  );
  for (const r of rows) for (const why of r.refusedWhy) lines.push(`refused at compile in ${r.file}: ${why}`);
  for (const [file, mode] of Object.entries(AS_ANNOTATIONS))
    lines.push(`${file} ran with ${mode.assertFormats === false ? 'formats' : 'content'} as annotations: ${mode.why}`);
  console.log(`\n${lines.map((l) => `    ${l}`).join('\n')}\n`);
}
