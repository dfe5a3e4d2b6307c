import { get, Refused } from '../api';

/** A JSON Schema as the forms read it. */
export type JsonSchema = { readonly [key: string]: unknown };

export type BuiltIn = { readonly name: string; readonly id: string };

const asked = new Map<string, Promise<unknown>>();

/** A call made once per page load and its answer shared; one that failed is forgotten, so the next use asks again. */
function once<T>(key: string, call: () => Promise<T>): Promise<T> {
  let answer = asked.get(key) as Promise<T> | undefined;
  if (!answer) {
    answer = call().catch((e: unknown) => {
      asked.delete(key);
      throw e;
    });
    asked.set(key, answer);
  }
  return answer;
}

/** The 24 built-in schemas' names and ids (GET /schemas/core). */
export const builtIns = (): Promise<readonly BuiltIn[]> =>
  once('/schemas/core', async () => (await get<{ schemas: BuiltIn[] }>('/schemas/core')).schemas);

/** The built-in a `schemaRef` names (its id, or its bare name), or undefined. */
export async function builtInOf(schemaRef: string): Promise<BuiltIn | undefined> {
  return (await builtIns()).find((b) => b.id === schemaRef || b.name === schemaRef || `${b.name}.json` === schemaRef);
}

function fetchBuiltIn(name: string): Promise<JsonSchema> {
  const path = `/schemas/core/${encodeURIComponent(name.endsWith('.json') ? name : `${name}.json`)}`;
  return once(path, () => get<JsonSchema>(path));
}

/** A built-in by id or name, its references to other built-ins inlined so a form can render it whole. */
export async function builtInSchema(schemaRef: string): Promise<JsonSchema> {
  const builtIn = await builtInOf(schemaRef);
  if (!builtIn) throw new Refused(404, 'not_found', `The service has no built-in schema named ${schemaRef}.`);
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
  throw new Refused(400, 'invalid_request', 'This has no schema to make a form from: neither a schema of its own nor a built-in.');
}
