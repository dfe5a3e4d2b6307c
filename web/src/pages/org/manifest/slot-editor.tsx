import type { BuiltIn } from '../../../forms/schemas';
import { schemaWords } from '../../../words';
import { changed, VERBS, type Adoption, type SlotDraft, type SlotKind, type Verb } from './drafts';

const VERB_LABELS: Readonly<Record<Verb, string>> = {
  fill: 'Fill: the person may make it as they answer',
  edit: 'Edit: the person’s later versions reach you',
  keep: 'Keep: you keep a copy, and may correct it',
};

const ADOPTIONS: ReadonlyArray<readonly [Adoption, string]> = [
  ['manual', 'Manual: when the person updates it, you decide whether to take the update'],
  ['auto', 'Automatic: you get the person’s updates automatically (needs Keep)'],
];

type Props = {
  readonly slot: SlotDraft;
  readonly index: number;
  readonly count: number;
  readonly builtIns: readonly BuiltIn[];
  readonly onChange: (slot: SlotDraft) => void;
  readonly onMove: (to: number) => void;
  readonly onRemove: () => void;
};

/** One slot of a manifest: what is asked (a built-in schema or a file), what may be done with it, and how updates come. */
export function SlotEditor({ slot, index, count, builtIns, onChange, onMove, onRemove }: Props) {
  const id = (field: string) => `slot-${slot.key}-${field}`;
  const set = (change: Partial<SlotDraft>) => onChange(changed(slot, change));
  const n = index + 1;
  const kindChanged = (kind: SlotKind) => set({ kind, target: kind === 'schema' ? (builtIns[0]?.name ?? '') : '' });
  return (
    <fieldset className="admin-slot">
      <legend>Slot {n}</legend>
      {slot.slotId && <p className="meta">Carried over from the previous version.</p>}
      <label htmlFor={id('label')}>Label</label>
      <input id={id('label')} required maxLength={200} value={slot.label} onChange={(e) => set({ label: e.target.value })} />
      <label htmlFor={id('group')}>Group (slots of a group are shown together)</label>
      <input id={id('group')} required maxLength={200} value={slot.group} onChange={(e) => set({ group: e.target.value })} />
      <label htmlFor={id('kind')}>Kind</label>
      <select id={id('kind')} value={slot.kind} onChange={(e) => kindChanged(e.target.value as SlotKind)}>
        <option value="schema">Data in a built-in schema</option>
        <option value="file">A file</option>
      </select>
      {slot.kind === 'schema' ? (
        <>
          <label htmlFor={id('target')}>Schema</label>
          <select id={id('target')} value={slot.target} onChange={(e) => set({ target: e.target.value })}>
            {builtIns.map((b) => (
              <option key={b.name} value={b.name}>
                {schemaWords(b.name)}
              </option>
            ))}
          </select>
        </>
      ) : (
        <>
          <label htmlFor={id('target')}>What file, in a word (such as PassportScan)</label>
          <input id={id('target')} required maxLength={200} value={slot.target} onChange={(e) => set({ target: e.target.value })} />
        </>
      )}
      <label htmlFor={id('subject')}>About whom (optional, such as “a director”)</label>
      <input id={id('subject')} maxLength={200} value={slot.subject} onChange={(e) => set({ subject: e.target.value })} />
      <fieldset className="admin-choices">
        <legend>What you may do with it</legend>
        {VERBS.map((v) => (
          <div className="admin-choice" key={v}>
            <input
              id={id(v)}
              type="checkbox"
              checked={slot.verbs.includes(v)}
              onChange={(e) => set({ verbs: VERBS.filter((w) => (w === v ? e.target.checked : slot.verbs.includes(w))) })}
            />
            <label htmlFor={id(v)}>{VERB_LABELS[v]}</label>
          </div>
        ))}
      </fieldset>
      <fieldset className="admin-choices">
        <legend>When the person updates it</legend>
        {ADOPTIONS.map(([a, words]) => (
          <div className="admin-choice" key={a}>
            <input id={id(a)} type="radio" name={id('adoption')} checked={slot.adoption === a} onChange={() => set({ adoption: a })} />
            <label htmlFor={id(a)}>{words}</label>
          </div>
        ))}
      </fieldset>
      <div className="admin-choice">
        <input id={id('required')} type="checkbox" checked={slot.required} onChange={(e) => set({ required: e.target.checked })} />
        <label htmlFor={id('required')}>Required: the person must share it to accept</label>
      </div>
      <div className="admin-choice">
        <input id={id('multiple')} type="checkbox" checked={slot.multiple} onChange={(e) => set({ multiple: e.target.checked })} />
        <label htmlFor={id('multiple')}>One or more: the person may share several</label>
      </div>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          aria-label={`Move up slot ${n}`}
          disabled={index === 0}
          onClick={() => onMove(index - 1)}
        >
          Move up
        </button>
        <button
          type="button"
          className="secondary"
          aria-label={`Move down slot ${n}`}
          disabled={index === count - 1}
          onClick={() => onMove(index + 1)}
        >
          Move down
        </button>
        <button type="button" className="secondary" aria-label={`Remove slot ${n}`} disabled={count === 1} onClick={onRemove}>
          Remove slot
        </button>
      </div>
    </fieldset>
  );
}
