import { parentPort, workerData } from 'node:worker_threads';
import type { JsonValue } from '../events/envelope.js';
import { SchemaCompiler } from './compiler.js';
import type { Schema } from './dialect.js';
import { loadMetaschemas } from './metaschemas.js';
import { schemaInvalid } from './results.js';
import type { ValidationResult } from './results.js';

/** What the pool hands a worker at start: the built-ins a `$ref` may name. */
export type WorkerInit = { readonly builtins: ReadonlyArray<readonly [string, Schema]> };
export type WorkerJob = { readonly id: number; readonly schema: JsonValue; readonly data: JsonValue };
export type WorkerReply = { readonly kind: 'ready' } | { readonly kind: 'result'; readonly id: number; readonly result: ValidationResult };

const port = parentPort;
if (port) {
  const init = workerData as WorkerInit;
  const compiler = new SchemaCompiler({ external: new Map([...loadMetaschemas(), ...init.builtins]) });
  // Warm up Ajv's metaschema before taking work, so the first job's budget is not spent on it.
  compiler.validate({ type: 'object' }, {});
  port.on('message', (job: WorkerJob) => {
    let result: ValidationResult;
    try {
      result = compiler.validate(job.schema, job.data);
    } catch (e) {
      result = schemaInvalid(`schema could not be evaluated: ${e instanceof Error ? e.message : String(e)}`);
    }
    port.postMessage({ kind: 'result', id: job.id, result } satisfies WorkerReply);
  });
  port.postMessage({ kind: 'ready' } satisfies WorkerReply);
}
