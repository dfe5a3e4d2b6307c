import { useEffect, useState } from 'react';
import { Refused } from '../../../api';
import { SchemaForm } from '../../../forms/schema-form';
import { builtIns, type BuiltIn } from '../../../forms/schemas';
import { schemaWords } from '../../../words';
import { SchemaPending, useSchemaOf } from '../../../forms/use-schema';
import { Disclosure } from '../../../disclosure';
import { managedOf, OwnerSelect } from './owner-select';
import { createDocument, type Entity } from './vault-data';

type Props = { readonly entities: readonly Entity[]; readonly onPublished: (message: string) => void };

/** A new document: one of the built-in schemas, a name, then the form of that schema. */
export function NewDocument(props: Props) {
  return (
    <Disclosure id="new-document" label="New document" className="card">
      {(close) => (
        <NewDocumentForm
          {...props}
          onPublished={(message) => {
            close();
            props.onPublished(message);
          }}
        />
      )}
    </Disclosure>
  );
}

function NewDocumentForm({ entities, onPublished }: Props) {
  const [kinds, setKinds] = useState<readonly BuiltIn[]>([]);
  const [schemaRef, setSchemaRef] = useState('');
  const [name, setName] = useState('');
  const [named, setNamed] = useState(false);
  const [owner, setOwner] = useState('');
  const schema = useSchemaOf(schemaRef ? { schemaRef } : null);
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
    await createDocument({ name: name.trim(), schemaRef, data, owner });
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
      {managedOf(entities).length > 0 && (
        <OwnerSelect id="new-owner" label="Whose it is" entities={entities} value={owner} onChange={setOwner} yours />
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
