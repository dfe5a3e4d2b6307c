import { useState } from 'react';
import { Disclosure } from '../../../disclosure';
import { SchemaForm } from '../../../forms/schema-form';
import { builtInOf } from '../../../forms/schemas';
import { SchemaPending, useSchemaOf } from '../../../forms/use-schema';
import { schemaWords } from '../../../words';
import { FileUpload } from '../vault/file-upload';
import { managedOf, OwnerSelect } from '../vault/owner-select';
import { createDocument } from '../vault/vault-data';
import type { RequestItem } from './person-data';
import type { EntityChoice } from './vault-records';

type Props = {
  readonly slot: RequestItem;
  /** The legal entities the person manages: a slot about one (its subject) takes a record of theirs. */
  readonly entities: readonly EntityChoice[];
  /** The new record's id, once stored: the page reloads the vault and chooses it for the slot. */
  readonly onAdded: (resourceId: string) => Promise<void>;
};

/** Adds what a slot asks for when the vault has none yet: a document made from the slot's schema, or an uploaded file. */
export function AddRecord(props: Props) {
  const what = props.slot.kind === 'file' ? 'file' : schemaWords(props.slot.target).toLowerCase();
  return (
    <div className="add-record">
      <Disclosure id={`add-${props.slot.slotId}`} label={`Add a new ${what} for ${props.slot.label}`} className="card">
        {() => (props.slot.kind === 'file' ? <UploadFile {...props} /> : <NewDocument {...props} />)}
      </Disclosure>
    </div>
  );
}

/** Whose a new record is: the person's own, or for a slot with a subject the first legal entity they manage. */
const firstOwner = ({ slot, entities }: Props): string => (slot.subject ? (managedOf(entities)[0]?.entityId ?? '') : '');

/** The choice of that legal entity, for a slot about one (its subject). */
function OwnerChoice(props: {
  readonly slot: RequestItem;
  readonly entities: readonly EntityChoice[];
  readonly owner: string;
  readonly onOwner: (owner: string) => void;
}) {
  if (!props.slot.subject) return null;
  if (managedOf(props.entities).length === 0) return <p className="note">This asks about a company you manage; you manage none yet.</p>;
  return (
    <OwnerSelect
      id={`owner-${props.slot.slotId}`}
      label={`Whose it is (${props.slot.subject})`}
      entities={props.entities}
      value={props.owner}
      onChange={props.onOwner}
    />
  );
}

/** A document of the slot's built-in schema, filled in here (the same form as the vault's). */
function NewDocument(props: Props) {
  const { slot, entities, onAdded } = props;
  const schema = useSchemaOf({ schemaRef: slot.target });
  const [owner, setOwner] = useState(() => firstOwner(props));
  if (schema === null || 'failed' in schema) return <SchemaPending schema={schema} />;
  const save = async (data: unknown) => {
    // A slot names its built-in by bare name; a document keeps the built-in's id.
    const schemaRef = (await builtInOf(slot.target))?.id ?? slot.target;
    await onAdded((await createDocument({ name: schemaWords(slot.target), schemaRef, data, owner })).id);
  };
  return (
    <>
      <OwnerChoice slot={slot} entities={entities} owner={owner} onOwner={setOwner} />
      <SchemaForm
        schema={schema.schema}
        submitLabel={`Save and choose for ${slot.label}`}
        idPrefix={`new-${slot.slotId}`}
        onSubmit={save}
      />
    </>
  );
}

/** A file sent to the vault from here as soon as it is chosen, with its progress. */
function UploadFile(props: Props) {
  const { slot, entities, onAdded } = props;
  const [owner, setOwner] = useState(() => firstOwner(props));
  return (
    <>
      <OwnerChoice slot={slot} entities={entities} owner={owner} onOwner={setOwner} />
      <FileUpload
        id={`file-${slot.slotId}`}
        title={`A file for ${slot.label}`}
        fileLabel={`Upload a file for ${slot.label}`}
        target={() => ({ owner })}
        onSent={(made) => onAdded(made.fileId)}
      />
    </>
  );
}
