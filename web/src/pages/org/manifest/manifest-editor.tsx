import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Failure, Outcome, useAction } from '../../../actions';
import type { Answer } from '../../../api';
import { ConsentSummary } from '../../../consent/consent-summary';
import { builtIns as listBuiltIns, type BuiltIn } from '../../../forms/schemas';
import type { OrgSession } from '../org-session';
import { blankSlot, draftOf, moved, slotInput, type Manifest, type SlotDraft } from './drafts';
import { RetentionField } from './retention-field';
import { SlotEditor } from './slot-editor';

type Props = {
  readonly org: OrgSession;
  readonly organizationName: string;
  /** The manifest a new version is drafted from; none for a new manifest. */
  readonly base?: Manifest;
  readonly onPublished: (manifest: Manifest) => void;
  readonly onCancel: () => void;
};

const FIRST_SCHEMA = 'PersonFullName';

/**
 * A new manifest, or the next version of one (its slots carried over by slotId), with a live preview
 * of what the person will read on the request's page (the same ConsentSummary shows it there).
 */
export function ManifestEditor({ org, organizationName, base, onPublished, onCancel }: Props) {
  const [name, setName] = useState('');
  const [purpose, setPurpose] = useState(base?.purpose ?? '');
  const [retention, setRetention] = useState(base?.retention ?? 'P90D');
  const [slots, setSlots] = useState<SlotDraft[]>(() => base?.slots.map(draftOf) ?? [blankSlot(FIRST_SCHEMA)]);
  const [builtIns, setBuiltIns] = useState<readonly BuiltIn[]>([]);
  const [builtInsFailed, setBuiltInsFailed] = useState<string | null>(null);
  const action = useAction();
  const title = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    title.current?.focus();
    // A failed list stays failed for this page load (schemas.ts keeps the answer), so the words say to reload.
    listBuiltIns().then(setBuiltIns, () =>
      setBuiltInsFailed('The built-in schemas could not be read, so no slot’s schema can be chosen: reload the page to try again.'),
    );
  }, []);

  const publish = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const version = { purpose, retention, slots: slots.map(slotInput) };
      const { manifest } = base
        ? await org.api.post<Answer<'post', '/org/v1/manifests/{manifestId}/versions'>>(
            `/org/v1/manifests/${base.manifestId}/versions`,
            version,
          )
        : await org.api.post<Answer<'post', '/org/v1/manifests'>>('/org/v1/manifests', { name: name.trim(), ...version });
      onPublished(manifest);
      return '';
    });
  };
  const replace = (i: number, slot: SlotDraft) => setSlots(slots.map((s, j) => (j === i ? slot : s)));

  return (
    <section className="card" aria-labelledby="editor-title">
      <h2 id="editor-title" ref={title} tabIndex={-1}>
        {base ? `Version ${base.version + 1} of ${base.name}` : 'New manifest'}
      </h2>
      <form onSubmit={publish}>
        {!base && (
          <>
            <label htmlFor="manifest-name">Name (people see it with the requests you send)</label>
            <input id="manifest-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
          </>
        )}
        <label htmlFor="manifest-purpose">Why you ask: the person reads this before they answer</label>
        <textarea id="manifest-purpose" required maxLength={2000} rows={3} value={purpose} onChange={(e) => setPurpose(e.target.value)} />
        <RetentionField value={retention} onChange={setRetention} />
        <h3>What you ask for</h3>
        <Failure error={builtInsFailed} />
        {slots.map((slot, i) => (
          <SlotEditor
            key={slot.key}
            slot={slot}
            index={i}
            count={slots.length}
            builtIns={builtIns}
            onChange={(s) => replace(i, s)}
            onMove={(to) => setSlots(moved(slots, i, to))}
            onRemove={() => setSlots(slots.filter((_, j) => j !== i))}
          />
        ))}
        <div className="actions">
          <button type="button" className="secondary" onClick={() => setSlots([...slots, blankSlot(builtIns[0]?.name ?? FIRST_SCHEMA)])}>
            Add slot
          </button>
        </div>
        <section className="admin-preview" aria-labelledby="preview-title">
          <h3 id="preview-title">Preview: what the person will see</h3>
          <ConsentSummary
            organizationName={organizationName}
            purpose={purpose}
            retention={retention}
            slots={slots.map((s) => ({ ...s, label: s.label || 'A slot without a label yet', subject: s.subject.trim() || null }))}
          />
        </section>
        <Outcome action={action} />
        <div className="actions">
          <button type="submit" disabled={action.busy}>
            Publish
          </button>
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
