import { useEffect, useState, type ChangeEvent } from 'react';
import { messageOf, upload } from '../../../api';
import { SchemaForm } from '../../../forms/schema-form';
import { builtInOf, builtInSchema, type JsonSchema } from '../../../forms/schemas';
import { schemaWords } from '../../../words';
import { personQuery, type RequestItem } from './person-data';
import type { Entity } from './vault-records';

type Props = {
  readonly slot: RequestItem;
  /** The legal entities the person manages: a slot about one (its subject) takes a record of theirs. */
  readonly entities: readonly Entity[];
  /** The new record's id, once stored: the page reloads the vault and chooses it for the slot. */
  readonly onAdded: (resourceId: string) => Promise<void>;
};

/** Adds what a slot asks for when the vault has none yet: a document made from the slot's schema, or an uploaded file. */
export function AddRecord(props: Props) {
  const [open, setOpen] = useState(false);
  const what = props.slot.kind === 'file' ? 'file' : schemaWords(props.slot.target).toLowerCase();
  const formId = `add-${props.slot.slotId}`;
  return (
    <div className="add-record">
      <button type="button" className="secondary" aria-expanded={open} aria-controls={formId} onClick={() => setOpen(!open)}>
        Add a new {what} for {props.slot.label}
      </button>
      {open && (
        <div id={formId} className="card">
          {props.slot.kind === 'file' ? <UploadFile {...props} /> : <NewDocument {...props} />}
        </div>
      )}
    </div>
  );
}

const managedOf = (entities: readonly Entity[]) => entities.filter((e) => e.role === 'MANAGER');

/** Whose a new record is: the person's own, or for a slot with a subject the first legal entity they manage. */
const firstOwner = ({ slot, entities }: Props): string => (slot.subject ? (managedOf(entities)[0]?.entityId ?? '') : '');

/** The choice of that legal entity, for a slot about one (its subject). */
function OwnerChoice(props: {
  readonly slot: RequestItem;
  readonly entities: readonly Entity[];
  readonly owner: string;
  readonly onOwner: (owner: string) => void;
}) {
  if (!props.slot.subject) return null;
  const managed = managedOf(props.entities);
  if (managed.length === 0) return <p className="note">This asks about a company you manage; you manage none yet.</p>;
  const id = `owner-${props.slot.slotId}`;
  return (
    <p>
      <label htmlFor={id}>Whose it is ({props.slot.subject})</label>{' '}
      <select id={id} value={props.owner} onChange={(e) => props.onOwner(e.target.value)}>
        {managed.map((e) => (
          <option key={e.entityId} value={e.entityId}>
            {e.name}
          </option>
        ))}
      </select>
    </p>
  );
}

const CREATE = 'mutation($input: DocumentInput!) { user { document { create(input: $input) { id } } } }';

/** A document of the slot's built-in schema, filled in here (the same form as the vault's). */
function NewDocument(props: Props) {
  const { slot, entities, onAdded } = props;
  const [schema, setSchema] = useState<{ ref: string; schema: JsonSchema } | { failed: string } | null>(null);
  const [owner, setOwner] = useState(() => firstOwner(props));
  useEffect(() => {
    Promise.all([builtInOf(slot.target), builtInSchema(slot.target)]).then(
      ([builtIn, s]) => setSchema({ ref: builtIn?.id ?? slot.target, schema: s }),
      (e: unknown) => setSchema({ failed: messageOf(e) }),
    );
  }, [slot.target]);
  if (schema === null) return <p aria-live="polite">Loading the form…</p>;
  if ('failed' in schema)
    return (
      <p role="alert" className="error">
        {schema.failed}
      </p>
    );
  const save = async (data: unknown) => {
    const input = { name: schemaWords(slot.target), schemaRef: schema.ref, data, ...(owner ? { owner } : {}) };
    const made = await personQuery<{ user: { document: { create: { id: string } } } }>(CREATE, { input });
    await onAdded(made.user.document.create.id);
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

/** A file sent to the vault from here (POST /vault/files), with its progress. */
function UploadFile(props: Props) {
  const { slot, entities, onAdded } = props;
  const [owner, setOwner] = useState(() => firstOwner(props));
  const [progress, setProgress] = useState<number | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const id = `file-${slot.slotId}`;
  const send = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return;
    setFailure(null);
    setProgress(0);
    const query = new URLSearchParams({ fileName: file.name, ...(owner ? { owner } : {}) });
    try {
      const made = await upload<{ fileId: string }>(
        `/vault/files?${query.toString()}`,
        file,
        { 'content-type': file.type || 'application/octet-stream' },
        setProgress,
      );
      await onAdded(made.fileId);
    } catch (err) {
      setFailure(messageOf(err));
    } finally {
      setProgress(null);
    }
  };
  return (
    <>
      <OwnerChoice slot={slot} entities={entities} owner={owner} onOwner={setOwner} />
      <label htmlFor={id}>Upload a file for {slot.label}</label>
      <input id={id} type="file" onChange={(e) => void send(e)} />
      {progress !== null && <progress value={progress} max={1} aria-label={`Uploading for ${slot.label}`} />}
      {failure && (
        <p role="alert" className="error">
          {failure}
        </p>
      )}
    </>
  );
}
