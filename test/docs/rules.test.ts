import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

/**
 * docs/rules.md names, for every rule of the interface, the file that implements it and the test
 * that checks it. This keeps those names true: a moved file, a renamed symbol or a retitled test
 * fails here until the entry is corrected. Reads nothing outside the repository.
 */
const root = new URL('../../', import.meta.url);
const NO_TEST_SECTION = 'Built, no test of its own yet';
const NOT_BUILT_SECTION = 'Not built yet';
const DASH = '—';

type Rule = { id: string; section: string; line: number; cells: string[] };

function rulesOf(markdown: string): Rule[] {
  const rules: Rule[] = [];
  let section = '';
  markdown.split('\n').forEach((text, i) => {
    const heading = /^## (.+)$/.exec(text);
    if (heading) section = heading[1]!.trim();
    if (!text.startsWith('| R-')) return;
    const cells = text
      .replace(/^\|\s*/, '')
      .replace(/\s*\|$/, '')
      .split(' | ')
      .map((c) => c.trim());
    rules.push({ id: cells[0]!, section, line: i + 1, cells });
  });
  return rules;
}

/** Every problem with the document's entries, as `line N (id): what is wrong`; none when it is right. */
function problemsOf(markdown: string, exists: (path: string) => boolean, read: (path: string) => string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const rule of rulesOf(markdown)) {
    const problem = (what: string) => problems.push(`line ${rule.line} (${rule.id}): ${what}`);
    if (!/^R-[A-Z]+-\d{2}$/.test(rule.id)) problem('the id is not R-AREA-NN');
    if (seen.has(rule.id)) problem('the id is used twice');
    seen.add(rule.id);
    if (rule.cells.length !== 5) {
      problem(`has ${rule.cells.length} cells, not 5 (id, rule, from, implemented in, checked by)`);
      continue;
    }
    const [, text, from, files, tests] = rule.cells as [string, string, string, string, string];
    if (!text || text === DASH) problem('states no rule');
    if (!/^[SC]/.test(from)) problem('names no source in the spec (S) or the contract (C)');

    const notBuilt = rule.section === NOT_BUILT_SECTION;
    if (notBuilt) {
      if (files !== DASH || tests !== DASH) problem(`a rule not built yet names neither file nor test (${DASH})`);
      continue;
    }
    for (const problemText of fileProblems(files, exists, read)) problem(problemText);
    if (rule.section === NO_TEST_SECTION) {
      if (tests !== DASH) problem(`a rule under "${NO_TEST_SECTION}" names no test; move it to its area`);
      continue;
    }
    for (const problemText of testProblems(tests, exists, read)) problem(problemText);
  }
  return problems;
}

function fileProblems(cell: string, exists: (path: string) => boolean, read: (path: string) => string): string[] {
  const refs = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  if (refs.length === 0) return [`names no implementing file: ${cell}`];
  const problems: string[] = [];
  for (const ref of refs) {
    const [path, symbol] = ref.split('#') as [string, string | undefined];
    if (!isRepoPath(path)) problems.push(`${path} is not a path inside the repository`);
    else if (!exists(path)) problems.push(`${path} does not exist`);
    else if (symbol !== undefined && !new RegExp(`\\b${escapeRegExp(symbol)}\\b`).test(read(path)))
      problems.push(`${path} has no ${symbol}`);
  }
  return problems;
}

function testProblems(cell: string, exists: (path: string) => boolean, read: (path: string) => string): string[] {
  const problems: string[] = [];
  for (const entry of cell.split('<br>').map((e) => e.trim())) {
    const m = /^`([^`]+)` "([^"]+)"$/.exec(entry);
    if (!m) {
      problems.push(`a test is written \`test/path.test.ts\` "part of its title", not: ${entry}`);
      continue;
    }
    const [, path, title] = m as unknown as [string, string, string];
    if (!isRepoPath(path) || !path.startsWith('test/')) problems.push(`${path} is not a test file of the repository`);
    else if (!exists(path)) problems.push(`${path} does not exist`);
    else if (!testTitles(read(path)).some((t) => t.includes(title)))
      problems.push(`${path} has no it(...) whose title contains "${title}"`);
  }
  return problems;
}

/** The titles of a file's it(...) calls, escapes undone; a template literal keeps its ${...} text. */
function testTitles(source: string): string[] {
  return [...source.matchAll(/\bit(?:\.skip|\.only)?\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/gs)].map((m) => m[2]!.replace(/\\(.)/g, '$1'));
}

const isRepoPath = (path: string) => !path.startsWith('/') && !path.split('/').includes('..') && !path.includes('\\');
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const inRepo = {
  exists: (path: string) => existsSync(new URL(path, root)),
  read: (path: string) => readFileSync(new URL(path, root), 'utf8'),
};

/** Every `R-AREA-NN` a comment of src/ cites, as `file:line id`, that docs/rules.md does not define. */
function unknownCitations(ids: ReadonlySet<string>, sources: readonly { path: string; text: string }[]): string[] {
  return sources.flatMap(({ path, text }) =>
    text
      .split('\n')
      .flatMap((line, i) => [...line.matchAll(/\bR-[A-Z]+-\d{2}\b/g)].filter((m) => !ids.has(m[0])).map((m) => `${path}:${i + 1} ${m[0]}`)),
  );
}

function sourcesUnder(dir: string): { path: string; text: string }[] {
  const base = fileURLToPath(root);
  const walk = (at: string): string[] =>
    readdirSync(at, { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? walk(join(at, d.name)) : d.name.endsWith('.ts') ? [join(at, d.name)] : [],
    );
  return walk(join(base, dir)).map((file) => ({ path: relative(base, file), text: readFileSync(file, 'utf8') }));
}

describe('docs/rules.md: every rule names a real implementing file and a real test', () => {
  const markdown = inRepo.read('docs/rules.md');

  it('every entry names files, symbols and test titles that exist', () => {
    expect(problemsOf(markdown, inRepo.exists, inRepo.read)).to.deep.equal([]);
  });

  it('every rule id a comment in src/ cites is an entry of docs/rules.md', () => {
    const ids = new Set(rulesOf(markdown).map((r) => r.id));
    expect(unknownCitations(ids, sourcesUnder('src'))).to.deep.equal([]);
    expect(unknownCitations(ids, [{ path: 'src/x.ts', text: '// one\n/** R-AUTH-01 and R-NOPE-01 */' }])).to.deep.equal([
      'src/x.ts:2 R-NOPE-01',
    ]);
  });

  it('lists the rules of every area', () => {
    const rules = rulesOf(markdown);
    const sections = new Set(rules.map((r) => r.section));
    expect(rules.length).to.be.greaterThan(100);
    for (const area of [
      'Conventions and errors',
      'Login and sessions',
      'Access tokens',
      'Documents',
      'Requests and consent',
      'Files',
      NOT_BUILT_SECTION,
    ]) {
      expect(sections, area).to.include(area);
    }
  });

  it('the check catches a missing file, symbol, test file or title, a malformed id and a dash outside its section', () => {
    const files: Record<string, string> = {
      'src/a.ts': 'export function realSymbol() {}',
      'test/a.test.ts': "it('answers 200 when it\\'s fine', () => {});\nit(`counts ${n} things`, () => {});",
    };
    const check = (row: string, section = 'Area') =>
      problemsOf(
        `## ${section}\n\n| id | rule | from | implemented in | checked by |\n|---|---|---|---|---|\n${row}\n`,
        (p) => p in files,
        (p) => files[p]!,
      );
    const good =
      '| R-AREA-01 | A rule. | C§0 | `src/a.ts#realSymbol` | `test/a.test.ts` "when it\'s fine"<br>`test/a.test.ts` "counts ${n}" |';
    expect(check(good)).to.deep.equal([]);
    expect(check(good.replace('src/a.ts#', 'src/gone.ts#'))).to.deep.equal(['line 5 (R-AREA-01): src/gone.ts does not exist']);
    expect(check(good.replace('realSymbol', 'otherSymbol'))).to.deep.equal(['line 5 (R-AREA-01): src/a.ts has no otherSymbol']);
    expect(check(good.replace('`test/a.test.ts` "counts', '`test/gone.test.ts` "counts'))).to.deep.equal([
      'line 5 (R-AREA-01): test/gone.test.ts does not exist',
    ]);
    expect(check(good.replace("when it's fine", 'when it fails'))).to.deep.equal([
      'line 5 (R-AREA-01): test/a.test.ts has no it(...) whose title contains "when it fails"',
    ]);
    expect(check(good.replace('R-AREA-01', 'R-area-1'))).to.deep.equal(['line 5 (R-area-1): the id is not R-AREA-NN']);
    expect(check(good.replace('`src/a.ts#realSymbol`', '`../outside.ts`'))).to.deep.equal([
      'line 5 (R-AREA-01): ../outside.ts is not a path inside the repository',
    ]);
    expect(check('| R-AREA-01 | A rule. | C§0 | — | — |')).to.have.length(2);
    expect(check('| R-AREA-01 | A rule. | C§0 | — | — |', NOT_BUILT_SECTION)).to.deep.equal([]);
    expect(check('| R-AREA-01 | A rule. | C§0 | `src/a.ts` | — |', NO_TEST_SECTION)).to.deep.equal([]);
    expect(check(`${good}\n${good}`)).to.deep.equal(['line 6 (R-AREA-01): the id is used twice']);
  });
});
