import { expect } from 'chai';
import type { JsonValue } from '../../src/events/envelope.js';
import { builtinId, loadBuiltins } from '../../src/schemas/builtins.js';
import type { BuiltinName } from '../../src/schemas/builtins.js';
import { SchemaCompiler } from '../../src/schemas/compiler.js';
import type { CompilerOptions } from '../../src/schemas/compiler.js';
import type { Schema } from '../../src/schemas/dialect.js';
import { loadMetaschemas } from '../../src/schemas/metaschemas.js';
import type { ValidationResult } from '../../src/schemas/results.js';

export const SCHEMA_BASE = 'http://localhost:3000/schemas';

export function core(name: BuiltinName): string {
  return builtinId(SCHEMA_BASE, name);
}

/** What the service registers: the metaschema and the 24 built-ins, plus anything a test adds. */
export function knownSchemas(extra: Iterable<readonly [string, Schema]> = []): Map<string, Schema> {
  return new Map<string, Schema>([...loadMetaschemas(), ...loadBuiltins(SCHEMA_BASE).map((b) => [b.id, b.schema] as const), ...extra]);
}

/** The in-process compiler, as the workers run it. */
export function compiler(options: Partial<CompilerOptions> = {}): SchemaCompiler {
  return new SchemaCompiler({ external: knownSchemas(), ...options });
}

/**
 * Judges with the engine routing the service uses and with the direct evaluator alone, and
 * insists they agree: the evaluator answers for the forms Ajv gets wrong, so it must be right too.
 */
export function judge(schema: JsonValue, data: JsonValue): ValidationResult {
  const routed = routedCompiler.validate(schema, data);
  const direct = evaluatorCompiler.validate(schema, data);
  expect(direct.ok, `evaluator and routed engine disagree on ${JSON.stringify(data)}`).to.equal(routed.ok);
  if (!routed.ok && !direct.ok) expect(direct.code).to.equal(routed.code);
  return routed;
}

const routedCompiler = compiler();
const evaluatorCompiler = compiler({ evaluatorOnly: true });

export function expectValid(schema: JsonValue, data: JsonValue): void {
  const result = judge(schema, data);
  expect(result, JSON.stringify(result)).to.deep.equal({ ok: true });
}

export function expectDataInvalid(schema: JsonValue, data: JsonValue, keyword?: string): void {
  const result = judge(schema, data);
  expect(result.ok, `expected ${JSON.stringify(data)} to be invalid`).to.equal(false);
  if (result.ok) return;
  expect(result.code, result.message).to.equal('DATA_INVALID');
  if (keyword && result.code === 'DATA_INVALID') expect(result.errors.map((e) => e.keyword)).to.include(keyword);
}

export function expectRefused(schema: JsonValue, code: 'SCHEMA_INVALID' | 'SCHEMA_NOT_FOUND', message: RegExp): void {
  const result = routedCompiler.validate(schema, null);
  expect(result.ok).to.equal(false);
  if (result.ok) return;
  expect(result.code, result.message).to.equal(code);
  expect(result.message).to.match(message);
}
