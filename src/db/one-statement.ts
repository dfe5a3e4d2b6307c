import type { Statement } from './sql.js';

/** Statements joined as one, and which of those given each holds (their indexes). */
export type Joined = { readonly statement: Statement; readonly parts: readonly number[] };

type Shape = 'cte' | 'main' | 'alone';

/**
 * Independent writes as few statements: each INSERT, UPDATE or DELETE becomes a data-modifying
 * CTE of one statement, which PostgreSQL runs exactly once, all on one snapshot, in an order it
 * does not promise. So `statements` must be independent: none reads a table another writes, and no
 * two touch one row (docs/decisions.md, "Read models"). One statement is one Bind and Execute and one
 * plan instead of one each. A statement that opens with its own WITH or is a SELECT ends a joined
 * statement (a nested data-modifying WITH is refused, an unreferenced SELECT never runs), so at most
 * one goes in each; one that cannot be read safely (a dollar-quoted string) goes alone.
 */
export function joinedStatements(statements: readonly Statement[]): Joined[] {
  const joined: Joined[] = [];
  let ctes: number[] = [];
  const close = (main: number | null) => {
    const parts = main === null ? ctes : [...ctes, main];
    if (parts.length > 0) joined.push({ statement: join(statements, parts), parts });
    ctes = [];
  };
  for (const [i, [text]] of statements.entries()) {
    const shape = shapeOf(text);
    if (shape === 'cte') ctes.push(i);
    else if (shape === 'main') close(i);
    else joined.push({ statement: statements[i]!, parts: [i] });
  }
  close(null);
  return joined;
}

/** The parts as one statement: all but the last as CTEs ahead of the last, whose own WITH list they join. */
function join(statements: readonly Statement[], parts: readonly number[]): Statement {
  if (parts.length === 1) return statements[parts[0]!]!;
  const values: unknown[] = [];
  const texts = parts.map((i) => {
    const [text, own] = statements[i]!;
    const renumbered = renumber(parsed(text), values.length);
    values.push(...own);
    return renumbered;
  });
  const main = texts.pop()!;
  const name = cteName(main);
  const ctes = texts.map((t, i) => `${name}${i} AS (${t})`).join(', ');
  const opensWith = /^WITH\s/i.exec(main);
  return [opensWith ? `WITH ${ctes}, ${main.slice(opensWith[0].length)}` : `WITH ${ctes} ${main}`, values];
}

/** A prefix for the joined CTEs' names that the main statement's own (a statement joined before) do not use. */
function cteName(main: string): string {
  let depth = 0;
  while (main.includes(`dss_joined${depth}_`)) depth++;
  return `dss_joined${depth}_`;
}

/** A statement's text read once: its shape, and the text around each parameter ($n as n). */
type Parsed = { readonly shape: Shape; readonly pieces: readonly string[]; readonly params: readonly number[] };

/**
 * Texts read so far: every append joins the same few hundred texts, so each is read once. Past the
 * bound (texts built with a name in them) the memory starts again; it only saves work.
 */
const parsedTexts = new Map<string, Parsed>();
const MAX_PARSED = 1000;

function parsed(text: string): Parsed {
  let known = parsedTexts.get(text);
  if (!known) {
    if (parsedTexts.size >= MAX_PARSED) parsedTexts.clear();
    parsedTexts.set(text, (known = parse(text)));
  }
  return known;
}

const shapeOf = (text: string): Shape => parsed(text).shape;

/** The text with each parameter $n as $(n + by). */
function renumber({ pieces, params }: Parsed, by: number): string {
  let out = pieces[0]!;
  for (const [i, n] of params.entries()) out += `$${n + by}${pieces[i + 1]!}`;
  return out;
}

/**
 * Splits the text at its parameters, past quoted strings, quoted names and comments; one holding a
 * dollar-quoted string, whose end this does not look for, goes alone.
 */
function parse(source: string): Parsed {
  const text = source.trim().replace(/;\s*$/, '');
  const pieces: string[] = [];
  const params: number[] = [];
  let piece = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const skipTo = c === "'" || c === '"' ? closingQuote(text, i) : text.startsWith('--', i) ? lineEnd(text, i) : -1;
    if (skipTo >= 0) {
      i = skipTo;
      continue;
    }
    if (c === '$') {
      const digits = /^\$(\d+)/.exec(text.slice(i, i + 12));
      if (!digits) return { shape: 'alone', pieces: [text], params: [] };
      pieces.push(text.slice(piece, i));
      params.push(Number(digits[1]));
      i += digits[0].length;
      piece = i;
      continue;
    }
    i++;
  }
  pieces.push(text.slice(piece));
  return { shape: shapeOfWords(text), pieces, params };
}

function shapeOfWords(text: string): Shape {
  const head = /^([A-Za-z]+)(\s+RECURSIVE\b)?/i.exec(text);
  const word = head?.[1]?.toUpperCase();
  if (word === 'INSERT' || word === 'UPDATE' || word === 'DELETE') return 'cte';
  if ((word === 'WITH' && !head![2]) || word === 'SELECT') return 'main';
  return 'alone';
}

/** Just past the quote that closes the one at `from` (a doubled quote stays inside). */
function closingQuote(text: string, from: number): number {
  const quote = text[from]!;
  let i = from + 1;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] !== quote) return i + 1;
      i += 2;
    } else i++;
  }
  return text.length;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}
