import { useState, type FormEvent, type ReactNode } from 'react';
import type { Action } from '../actions';

type Props = {
  /** The field's id, and through its label its accessible name. */
  readonly id: string;
  readonly label: string;
  /** The button's label: its verb and what it makes ("Create organization"), contract §11. */
  readonly submitLabel: string;
  readonly action: Action;
  /** Sends the name, trimmed; a sentence it answers is shown as done. The field empties once it is taken. */
  readonly onName: (name: string) => Promise<unknown>;
  /** What shows between the field and the button: mostly the action's Outcome. */
  readonly children?: ReactNode;
};

/** A form that names something new: an organization, an app, a legal entity. */
export function NameForm({ id, label, submitLabel, action, onName, children }: Props) {
  const [name, setName] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await action.run(() => onName(name.trim()))) setName('');
  };
  return (
    <form onSubmit={(e) => void submit(e)}>
      <label htmlFor={id}>{label}</label>
      <input id={id} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
      {children}
      <div className="actions">
        <button type="submit" disabled={action.busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
