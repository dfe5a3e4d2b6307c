import { get } from '../api';

/** A JSON Schema as the forms read it. */
export type JsonSchema = { readonly [key: string]: unknown };

export type BuiltIn = { readonly name: string; readonly id: string };

let listed: Promise<readonly BuiltIn[]> | null = null;
const loaded = new Map<string, Promise<JsonSchema>>();

/** The 24 built-in schemas' names and ids (GET /schemas/core), asked once per page load. */
export function builtIns(): Promise<readonly BuiltIn[]> {
  listed ??= get<{ schemas: BuiltIn[] }>('/schemas/core').then((l) => l.schemas);
  return listed;
}

/** The built-in a `schemaRef` names (its id, or its bare name), or undefined. */
export async function builtInOf(schemaRef: string): Promise<BuiltIn | undefined> {
  return (await builtIns()).find((b) => b.id === schemaRef || b.name === schemaRef || `${b.name}.json` === schemaRef);
}

function fetchBuiltIn(name: string): Promise<JsonSchema> {
  const file = name.endsWith('.json') ? name : `${name}.json`;
  let schema = loaded.get(file);
  if (!schema) {
    schema = get<JsonSchema>(`/schemas/core/${encodeURIComponent(file)}`);
    loaded.set(file, schema);
  }
  return schema;
}

/** A built-in by id or name, its references to other built-ins inlined so a form can render it whole. */
export async function builtInSchema(schemaRef: string): Promise<JsonSchema> {
  const builtIn = await builtInOf(schemaRef);
  if (!builtIn) throw new Error(`no built-in schema ${schemaRef}`);
  return inlineReferences(await fetchBuiltIn(builtIn.name), 0);
}

/**
 * The built-ins refer to each other by relative file name ("PersonFullName.json"); react-jsonschema-form
 * resolves only local references (#/...), so those are fetched and put in place. Local ones stay.
 */
async function inlineReferences(node: unknown, depth: number): Promise<JsonSchema> {
  if (depth > 8 || typeof node !== 'object' || node === null) return node as JsonSchema;
  if (Array.isArray(node)) return (await Promise.all(node.map((n) => inlineReferences(n, depth)))) as unknown as JsonSchema;
  const entries = Object.entries(node as Record<string, unknown>);
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && !ref.startsWith('#')) {
    const { $schema: _dialect, $id: _id, ...target } = await fetchBuiltIn(ref.split('/').pop()!.split('#')[0]!);
    const rest = Object.fromEntries(entries.filter(([k]) => k !== '$ref'));
    return inlineReferences({ ...target, ...rest }, depth + 1);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) out[key] = await inlineReferences(value, depth + 1);
  return out;
}

/** The schema of a document or slot: its own `documentSchema`, or the built-in its `schemaRef` names. */
export async function schemaOf(source: { schemaRef?: string | null; documentSchema?: unknown }): Promise<JsonSchema> {
  if (source.documentSchema && typeof source.documentSchema === 'object') return inlineReferences(source.documentSchema, 0);
  if (source.schemaRef) return builtInSchema(source.schemaRef);
  throw new Error('neither a schema nor a reference to one');
}
