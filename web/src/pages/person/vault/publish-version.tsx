import { graphql } from '../../../api';
import { SchemaForm } from '../../../forms/schema-form';
import { SchemaPending, useSchemaOf } from '../../../forms/use-schema';
import type { VaultDocument } from './vault-data';

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
