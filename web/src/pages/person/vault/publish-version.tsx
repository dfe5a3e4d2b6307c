import { useEffect, useState } from 'react';
import { graphql, messageOf } from '../../../api';
import { SchemaForm } from '../../../forms/schema-form';
import { schemaOf, type JsonSchema } from '../../../forms/schemas';
import type { VaultDocument } from './vault-data';

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
  if ('failed' in schema)
    return (
      <p role="alert" className="error">
        {schema.failed}
      </p>
    );
  return null;
}

const UPDATE = 'mutation($id: ID!, $input: DocumentUpdateInput!) { user { document { update(id: $id, input: $input) { version } } } }';

/** Version n + 1 of a document: the form of its schema, filled with the current data. The service judges it. */
export function PublishVersion({ doc, onPublished }: { readonly doc: VaultDocument; readonly onPublished: (version: number) => void }) {
  const schema = useSchemaOf(doc);
  if (schema === null || 'failed' in schema) return <SchemaPending schema={schema} />;
  const publish = async (data: unknown) => {
    const made = await graphql<{ user: { document: { update: { version: number } } } }>(UPDATE, { id: doc.id, input: { data } });
    onPublished(made.user.document.update.version);
  };
  return <SchemaForm schema={schema.schema} initial={doc.data} submitLabel="Publish" idPrefix={`doc-${doc.id}`} onSubmit={publish} />;
}
