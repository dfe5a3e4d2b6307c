import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Schema } from './dialect.js';

const require = createRequire(import.meta.url);
const FILES = [
  'schema',
  'meta/core',
  'meta/applicator',
  'meta/unevaluated',
  'meta/validation',
  'meta/meta-data',
  'meta/format-annotation',
  'meta/content',
];

/**
 * The 2020-12 metaschema and its vocabulary metaschemas, from the copies Ajv ships, keyed by
 * `$id`. A `$ref` to them resolves locally (never over the network), like a built-in.
 */
export function loadMetaschemas(): ReadonlyMap<string, Schema> {
  const out = new Map<string, Schema>();
  for (const file of FILES) {
    const path = require.resolve(`ajv/dist/refs/json-schema-2020-12/${file}.json`);
    const schema = JSON.parse(readFileSync(path, 'utf8')) as Schema & { $id: string };
    out.set(schema.$id, schema);
  }
  return out;
}
