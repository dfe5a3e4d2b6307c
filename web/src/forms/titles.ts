import { fieldWords } from '../words';
import type { JsonSchema } from './schemas';

/**
 * The schema with a title on every property that has none, its name in words, so a generated form
 * labels "givenName" as "Given name". Titles are annotations: the verdict on the data is unchanged.
 */
export function withTitles(schema: JsonSchema): JsonSchema {
  return titled(schema) as JsonSchema;
}

function titled(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(titled);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = key === 'properties' ? titledProperties(value) : titled(value);
  return out;
}

function titledProperties(properties: unknown): unknown {
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return properties;
  return Object.fromEntries(
    Object.entries(properties).map(([name, sub]) => {
      const inner = titled(sub);
      const needsTitle = typeof inner === 'object' && inner !== null && !Array.isArray(inner) && !('title' in inner);
      return [name, needsTitle ? { title: fieldWords(name), ...inner } : inner];
    }),
  );
}
