import { useEffect, useState } from 'react';
import { Failure } from '../actions';
import { messageOf } from '../api';
import { schemaOf, type JsonSchema } from './schemas';

type SchemaSource = { readonly schemaRef?: string | null; readonly documentSchema?: unknown };
type Schema = { readonly schema: JsonSchema } | { readonly failed: string } | null;

/** The JSON Schema a form is generated from: a document's own, or the built-in it names; null while it loads. */
export function useSchemaOf(source: SchemaSource | null): Schema {
  const [schema, setSchema] = useState<Schema>(null);
  const key = source ? JSON.stringify([source.schemaRef ?? null, source.documentSchema ?? null]) : null;
  useEffect(() => {
    setSchema(null);
    if (!source) return;
    let live = true;
    schemaOf(source).then(
      (s) => {
        if (live) setSchema({ schema: s });
      },
      (e: unknown) => {
        if (live) setSchema({ failed: messageOf(e) });
      },
    );
    return () => {
      live = false;
    };
    // Keyed by the schema itself: a new object naming the same schema loads nothing again.
  }, [key]);
  return schema;
}

/** A schema still loading or that failed to load, in words; null once it is there. */
export function SchemaPending({ schema }: { readonly schema: Schema }) {
  if (schema === null) return <p aria-live="polite">Loading the form…</p>;
  return 'failed' in schema ? <Failure error={schema.failed} /> : null;
}
