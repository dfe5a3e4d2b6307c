import { DIALECT, isSchemaObject, KNOWN_KEYWORDS, KNOWN_VOCABULARIES } from './dialect.js';
import type { SchemaObject } from './dialect.js';
import type { ExternalSchemas } from './resources.js';
import { normalizeUri } from './resources.js';

export type StrictOptions = {
  /** Formats asserted; any other format fails to compile. null: formats are annotations only. */
  readonly formats: ReadonlySet<string> | null;
  /** Content encodings asserted; any other fails to compile. null: content is annotation only. */
  readonly contentEncodings: ReadonlySet<string> | null;
};

/**
 * The strict mode of R-SCH-01 for one node: unknown keywords, unknown formats and any `$schema`
 * but 2020-12 fail to compile. Ajv's own strict flags also refuse valid 2020-12 schemas
 * (`if` without `then`, `minContains` without `contains`), so these checks replace them.
 */
export function strictProblems(node: SchemaObject, pointer: string, options: StrictOptions, external: ExternalSchemas): string[] {
  const problems: string[] = [];
  for (const keyword of Object.keys(node)) {
    if (!KNOWN_KEYWORDS.has(keyword)) problems.push(`unknown keyword "${keyword}" at ${pointer}`);
  }
  if (node.$schema !== undefined && node.$schema !== DIALECT) problems.push(dialectProblem(node.$schema, pointer, external));
  if (isSchemaObject(node.$vocabulary)) {
    for (const [vocabulary, required] of Object.entries(node.$vocabulary)) {
      if (required === true && !KNOWN_VOCABULARIES.has(vocabulary))
        problems.push(`$vocabulary at ${pointer} requires the unknown vocabulary "${vocabulary}"`);
    }
  }
  if (options.formats && typeof node.format === 'string' && !options.formats.has(node.format)) {
    problems.push(`unknown format "${node.format}" at ${pointer}`);
  }
  if (options.contentEncodings && typeof node.contentEncoding === 'string' && !options.contentEncodings.has(node.contentEncoding)) {
    problems.push(`unsupported contentEncoding "${node.contentEncoding}" at ${pointer}`);
  }
  if (typeof node.pattern === 'string') problems.push(...regexProblems(node.pattern, `${pointer}/pattern`));
  if (isSchemaObject(node.patternProperties)) {
    for (const key of Object.keys(node.patternProperties)) problems.push(...regexProblems(key, `${pointer}/patternProperties`));
  }
  return problems;
}

function dialectProblem(value: unknown, pointer: string, external: ExternalSchemas): string {
  const accepted = `only "${DIALECT}" is accepted as $schema`;
  if (typeof value !== 'string') return `$schema at ${pointer} must be a string; ${accepted}`;
  let metaschema;
  try {
    metaschema = external(normalizeUri(value));
  } catch {
    metaschema = undefined;
  }
  if (isSchemaObject(metaschema) && isSchemaObject(metaschema.$vocabulary)) {
    const unknown = Object.entries(metaschema.$vocabulary).find(([v, required]) => required === true && !KNOWN_VOCABULARIES.has(v));
    if (unknown) return `$schema "${value}" at ${pointer} requires the unknown vocabulary "${unknown[0]}"; ${accepted}`;
  }
  return `unsupported $schema "${value}" at ${pointer}; ${accepted}`;
}

function regexProblems(source: string, pointer: string): string[] {
  try {
    new RegExp(source, 'u');
    return [];
  } catch (e) {
    return [`invalid regular expression at ${pointer}: ${e instanceof Error ? e.message : String(e)}`];
  }
}
