import { useEffect, useState } from 'react';
import { graphql, Refused } from '../../../api';
import { SchemaForm } from '../../../forms/schema-form';
import { builtIns, type BuiltIn } from '../../../forms/schemas';
import { schemaWords } from '../../../words';
import { SchemaPending, useSchemaOf } from './publish-version';
import type { Entity } from './vault-data';

const CREATE = 'mutation($input: DocumentInput!) { user { document { create(input: $input) { id version } } } }';

type Props = { readonly entities: readonly Entity[]; readonly onPublished: (message: string) => void };

/** A new document: one of the built-in schemas, a name, then the form of that schema. */
export function NewDocument(props: Props) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="secondary" aria-expanded={open} aria-controls="new-document" onClick={() => setOpen(!open)}>
        New document
      </button>
      {open && (
        <div id="new-document" className="card">
          <NewDocumentForm
            {...props}
            onPublished={(message) => {
              setOpen(false);
              props.onPublished(message);
            }}
          />
        </div>
      )}
    </>
  );
}

function NewDocumentForm({ entities, onPublished }: Props) {
  const [kinds, setKinds] = useState<readonly BuiltIn[]>([]);
  const [schemaRef, setSchemaRef] = useState('');
  const [name, setName] = useState('');
  const [named, setNamed] = useState(false);
  const [owner, setOwner] = useState('');
  const schema = useSchemaOf(schemaRef ? { schemaRef } : null);
  const managed = entities.filter((e) => e.role === 'MANAGER');
  useEffect(() => {
    builtIns().then(setKinds, () => setKinds([]));
  }, []);

  const pick = (id: string) => {
    setSchemaRef(id);
    // Until the person names it, a document is called after its kind.
    const kind = kinds.find((k) => k.id === id);
    if (!named) setName(kind ? schemaWords(kind.name) : '');
  };
  const create = async (data: unknown) => {
    if (name.trim() === '') throw new Refused(400, 'invalid_request', 'Give the document a name.');
    const input = { name: name.trim(), schemaRef, data, ...(owner ? { owner } : {}) };
    await graphql(CREATE, { input });
    onPublished(`Published ${name.trim()}, version 1.`);
  };

  return (
    <>
      <h3>New document</h3>
      <p>
        <label htmlFor="new-kind">Kind of document</label>
        <br />
        <select id="new-kind" value={schemaRef} onChange={(e) => pick(e.target.value)}>
          <option value="">Choose one</option>
          {kinds.map((k) => (
            <option key={k.id} value={k.id}>
              {schemaWords(k.name)}
            </option>
          ))}
        </select>
      </p>
      <p>
        <label htmlFor="new-name">Name</label>
        <input
          id="new-name"
          value={name}
          maxLength={200}
          onChange={(e) => {
            setName(e.target.value);
            setNamed(true);
          }}
        />
      </p>
      {managed.length > 0 && (
        <p>
          <label htmlFor="new-owner">Whose it is</label>
          <br />
          <select id="new-owner" value={owner} onChange={(e) => setOwner(e.target.value)}>
            <option value="">Yours</option>
            {managed.map((e) => (
              <option key={e.entityId} value={e.entityId}>
                {e.name}
              </option>
            ))}
          </select>
        </p>
      )}
      {schemaRef &&
        (schema === null || 'failed' in schema ? (
          <SchemaPending schema={schema} />
        ) : (
          <SchemaForm key={schemaRef} schema={schema.schema} submitLabel="Publish" idPrefix="new-doc" onSubmit={create} />
        ))}
    </>
  );
}
