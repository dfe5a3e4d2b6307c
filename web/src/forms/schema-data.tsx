import { fieldWords } from '../words';
import type { JsonSchema } from './schemas';
import { useSchemaOf } from './use-schema';

type Node = { readonly [key: string]: unknown };

const isObject = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

function leaf(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/** The schema's own properties in its order, then any the data holds beyond them. */
function fields(schema: Node | undefined, data: Node): Array<[string, Node | undefined]> {
  const properties = isObject(schema?.properties) ? schema.properties : {};
  const keys = [...Object.keys(properties), ...Object.keys(data).filter((k) => !(k in properties))];
  return keys.filter((k) => data[k] !== undefined && data[k] !== null).map((k) => [k, isObject(properties[k]) ? properties[k] : undefined]);
}

/**
 * Data as a definition list built from its JSON Schema: each property under its title (or its name
 * in words), nested objects and arrays within. Read-only; `compareTo` marks what differs from it.
 */
export function SchemaData({
  schema,
  data,
  compareTo,
}: {
  readonly schema?: JsonSchema;
  readonly data: unknown;
  readonly compareTo?: unknown;
}) {
  if (Array.isArray(data)) {
    const items = isObject(schema?.items) ? schema.items : undefined;
    const others = Array.isArray(compareTo) ? (compareTo as unknown[]) : [];
    return (
      <ol>
        {(data as unknown[]).map((d, i) => (
          <li key={i}>
            <SchemaData schema={items} data={d} compareTo={others[i]} />
          </li>
        ))}
      </ol>
    );
  }
  if (!isObject(data)) return <>{leaf(data)}</>;
  const other = isObject(compareTo) ? compareTo : undefined;
  const entries = fields(schema, data);
  if (entries.length === 0) return <p className="meta">Nothing filled in.</p>;
  return (
    <dl className="facts">
      {entries.map(([key, sub]) => (
        <div key={key}>
          <dt>
            {typeof sub?.title === 'string' ? sub.title : fieldWords(key)}
            {compareTo !== undefined && JSON.stringify(other?.[key]) !== JSON.stringify(data[key]) && (
              <>
                {' '}
                <span className="tag">changed</span>
              </>
            )}
          </dt>
          <dd>
            <SchemaData schema={sub} data={data[key]} compareTo={other?.[key]} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The built-in schema `ref` names (its URL or its name), once loaded; none while it loads or when
 * there is none (the data then shows under its own names).
 */
export function useSchema(ref: string): JsonSchema | undefined {
  const schema = useSchemaOf({ schemaRef: ref });
  return schema && 'schema' in schema ? schema.schema : undefined;
}
