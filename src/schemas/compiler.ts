import { createHash } from 'node:crypto';
import type { JsonValue } from '../events/envelope.js';
import { canonicalJson } from '../events/canonical-json.js';
import { compileWithAjv, createAjv, metaschemaProblem } from './ajv-engine.js';
import { bundleForAjv } from './bundle.js';
import { CONTENT_ENCODINGS } from './content.js';
import { DIALECT, isSchema, isSchemaObject } from './dialect.js';
import type { Schema } from './dialect.js';
import { createEvaluator } from './evaluator/index.js';
import { FORMATS } from './formats/index.js';
import { buildGraph } from './graph.js';
import { normalizeUri } from './resources.js';
import type { ExternalSchemas } from './resources.js';
import { budgetExceeded, dataInvalid, DEPTH_BUDGET_MESSAGE, schemaInvalid } from './results.js';
import type { DataError, SchemaFailure, ValidationResult } from './results.js';
import { strictProblems } from './strict-checks.js';

export type CompilerOptions = {
  /** Documents a `$ref` may name by absolute URI (built-ins; in tests also the suite's remotes). */
  readonly external: ReadonlyMap<string, Schema>;
  /** Off only for the test suite's files that expect formats or content as annotations. */
  readonly assertFormats?: boolean;
  readonly assertContent?: boolean;
  /** Retrieval URI of a schema without `$id`. */
  readonly baseUri?: string;
  readonly cacheSize?: number;
  /** Judge every schema with the direct evaluator: lets tests cross-check it on the whole suite. */
  readonly evaluatorOnly?: boolean;
};

export type CompiledSchema = {
  /** Which engine judges: Ajv, or the direct evaluator for forms Ajv answers wrongly. */
  readonly engine: 'ajv' | 'evaluator';
  readonly check: (data: JsonValue) => DataError[];
};

const DEFAULT_BASE_URI = 'https://document-schema.invalid/schema.json';

/**
 * Compiles and runs schemas: strict checks, metaschema validation, reference resolution, then
 * Ajv, or the direct evaluator where Ajv would answer wrongly. Compiled schemas are cached by a
 * hash of their canonical JSON, so equal schemas compile once.
 */
export class SchemaCompiler {
  private readonly ajv;
  private readonly external: ExternalSchemas;
  private readonly cache = new Map<string, CompiledSchema | SchemaFailure>();
  private readonly assertFormats: boolean;
  private readonly assertContent: boolean;

  constructor(private readonly options: CompilerOptions) {
    this.assertFormats = options.assertFormats ?? true;
    this.assertContent = options.assertContent ?? true;
    this.ajv = createAjv({ assertFormats: this.assertFormats, assertContent: this.assertContent });
    const byUri = new Map([...options.external].map(([uri, schema]) => [normalizeUri(uri), schema]));
    this.external = (uri) => byUri.get(uri);
  }

  validate(schema: JsonValue, data: JsonValue): ValidationResult {
    return withinDepth(() => {
      const compiled = this.compile(schema);
      return 'ok' in compiled ? compiled : this.check(compiled, data);
    });
  }

  /** Data against a schema compiled before, as `validate` judges it once compiled. */
  check(compiled: CompiledSchema, data: JsonValue): ValidationResult {
    return withinDepth(() => {
      const errors = compiled.check(data);
      return errors.length ? dataInvalid(errors) : { ok: true };
    });
  }

  compile(schema: JsonValue): CompiledSchema | SchemaFailure {
    const key = createHash('sha256').update(canonicalJson(schema)).digest('base64url');
    const cached = this.cache.get(key);
    if (cached) {
      // Re-inserting keeps the map in least-recently-used order.
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const compiled = this.compileFresh(schema);
    this.cache.set(key, compiled);
    if (this.cache.size > (this.options.cacheSize ?? 500)) this.cache.delete(this.cache.keys().next().value as string);
    return compiled;
  }

  private compileFresh(schema: JsonValue): CompiledSchema | SchemaFailure {
    if (!isSchema(schema)) return schemaInvalid('a schema must be a JSON object or a boolean');
    // The dialect first: Ajv cannot even check a schema against a metaschema it does not know.
    if (isSchemaObject(schema) && schema.$schema !== undefined && schema.$schema !== DIALECT) {
      const strict = { formats: null, contentEncodings: null };
      return schemaInvalid(strictProblems({ $schema: schema.$schema }, '#', strict, this.external).join('; '));
    }
    const meta = metaschemaProblem(this.ajv, schema);
    if (meta) return schemaInvalid(meta);
    const graph = buildGraph(schema, {
      external: this.external,
      baseUri: this.options.baseUri ?? DEFAULT_BASE_URI,
      formats: this.assertFormats ? new Set(FORMATS.keys()) : null,
      contentEncodings: this.assertContent ? CONTENT_ENCODINGS : null,
    });
    if ('ok' in graph) return graph;
    if (graph.hazards.size > 0 || this.options.evaluatorOnly) {
      const check = createEvaluator(graph, { formats: this.assertFormats ? FORMATS : null, assertContent: this.assertContent });
      return { engine: 'evaluator', check };
    }
    try {
      return { engine: 'ajv', check: compileWithAjv(this.ajv, bundleForAjv(graph)) };
    } catch (e) {
      // Ajv inlines references while it compiles: a reference cycle that consumes no data never ends.
      if (e instanceof RangeError)
        return schemaInvalid('schema does not compile: it nests too deeply or refers to itself without consuming data');
      return schemaInvalid(`schema does not compile: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** A schema or data nested past the stack's depth is refused with the depth budget's message, not thrown. */
function withinDepth(run: () => ValidationResult): ValidationResult {
  try {
    return run();
  } catch (e) {
    if (e instanceof RangeError) return budgetExceeded(DEPTH_BUDGET_MESSAGE);
    throw e;
  }
}
