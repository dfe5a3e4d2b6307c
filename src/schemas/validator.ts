import type { JsonValue } from '../events/envelope.js';
import { builtinId, loadBuiltins } from './builtins.js';
import type { BuiltinSchema } from './builtins.js';
import { SchemaCompiler, type CompiledSchema } from './compiler.js';
import { loadMetaschemas } from './metaschemas.js';
import { ValidationPool } from './pool.js';
import { normalizeUri } from './resources.js';
import { schemaNotFound } from './results.js';
import type { ValidationResult } from './results.js';

export type SchemaValidatorOptions = {
  /** SCHEMA_BASE: built-in `$id`s are `{schemaBase}/core/<Name>.json`. */
  readonly schemaBase: string;
  /** Contract §10.13: the bases the database was served under before (servedSchemaBases); their built-in ids still resolve. */
  readonly servedBases?: readonly string[];
  /** Time one embedded-schema validation may take, compile included (default 2 s). */
  readonly budgetMs?: number;
  /** Worker threads for embedded schemas (default 2). */
  readonly poolSize?: number;
  /** Embedded-schema jobs that may wait for a worker (default 64). */
  readonly maxQueued?: number;
  /** Embedded-schema jobs one caller may have waiting or running (default 4). */
  readonly maxPerCaller?: number;
  /** Heap limit of each worker (default 256 MiB). */
  readonly maxWorkerMemoryMb?: number;
};

/**
 * Validation of document data (R-DOC-04, R-SCH-03): against a built-in by its canonical URL (option A,
 * trusted, in-process) or against an embedded Draft 2020-12 schema (option B, untrusted, in a
 * worker under a time budget). Every outcome is a value: valid, SCHEMA_INVALID,
 * SCHEMA_NOT_FOUND or DATA_INVALID.
 */
export class SchemaValidator {
  readonly builtins: readonly BuiltinSchema[];
  private readonly byUri: ReadonlyMap<string, BuiltinSchema>;
  private readonly compiler: SchemaCompiler;
  private readonly pool: ValidationPool;
  private readonly servedBases: readonly string[];
  /** Built-ins are ours and never change: each is compiled once, not found by its schema's hash per document. */
  private readonly compiledBuiltins = new Map<BuiltinSchema, CompiledSchema>();

  constructor(options: SchemaValidatorOptions) {
    this.builtins = loadBuiltins(options.schemaBase);
    this.servedBases = options.servedBases ?? [];
    // Each built-in under its id of every served base too: the same schema object, whose $id is the current base's.
    const ids = [
      ...(options.servedBases ?? []).flatMap((base) => this.builtins.map((b) => [builtinId(base, b.name), b] as const)),
      ...this.builtins.map((b) => [b.id, b] as const),
    ];
    this.byUri = new Map(ids.map(([id, b]) => [normalizeUri(id), b]));
    const builtins = ids.map(([id, b]) => [id, b.schema] as const);
    this.compiler = new SchemaCompiler({ external: new Map([...loadMetaschemas(), ...builtins]) });
    for (const b of this.builtins) {
      const compiled = this.compiler.compile(b.schema);
      // A broken built-in is a bug of ours: refuse to start rather than refuse every document.
      if ('ok' in compiled) throw new Error(`built-in schema ${b.name} does not compile: ${compiled.message}`);
      this.compiledBuiltins.set(b, compiled);
    }
    this.pool = new ValidationPool({
      size: options.poolSize ?? 2,
      budgetMs: options.budgetMs ?? 2000,
      maxQueued: options.maxQueued ?? 64,
      maxPerCaller: options.maxPerCaller ?? 4,
      maxMemoryMb: options.maxWorkerMemoryMb ?? 256,
      init: { builtins },
    });
  }

  /** The built-in a schemaRef names, when it is a canonical built-in URL. */
  builtin(schemaRef: string): BuiltinSchema | undefined {
    // A ref spelled as its id is found as is (normalizing is idempotent): parsing it was a publish's 2%.
    const asSpelled = this.byUri.get(schemaRef);
    if (asSpelled) return asSpelled;
    try {
      return this.byUri.get(normalizeUri(schemaRef));
    } catch {
      return undefined;
    }
  }

  /** Every id of the built-in `schemaRef` names, one per served base, the current one first; none for another ref. */
  idsOf(schemaRef: string): string[] {
    const builtin = this.builtin(schemaRef);
    return builtin ? [...new Set([builtin.id, ...this.servedBases.map((base) => builtinId(base, builtin.name))])] : [];
  }

  /** A stored schemaRef as answers show it: a built-in's by the current base's canonical URL (contract §10.13). */
  canonicalRef(schemaRef: string): string {
    return this.builtin(schemaRef)?.id ?? schemaRef;
  }

  /** Option A: data against a built-in, in-process (the schema is ours, so it cannot stall us). */
  validateWithBuiltin(schemaRef: string, data: JsonValue): ValidationResult {
    const builtin = this.builtin(schemaRef);
    if (!builtin) return schemaNotFound(schemaRef);
    return this.compiler.check(this.compiledBuiltins.get(builtin)!, data);
  }

  /** Option B: data against an embedded schema, in a worker under the time budget; `caller` is the identity asking. */
  validateWithSchema(documentSchema: JsonValue, data: JsonValue, caller: string): Promise<ValidationResult> {
    return this.pool.run(documentSchema, data, caller);
  }

  /** Resolves once every worker has started. */
  ready(): Promise<void> {
    return this.pool.ready();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
