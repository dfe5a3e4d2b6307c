import type { FormContextType, IconButtonProps, RJSFSchema, TemplatesType } from '@rjsf/utils';
import { fieldWords } from '../words';

/** What SchemaForm hands its buttons: the form's id prefix, so a button's id names its field. */
export type ButtonContext = FormContextType & { readonly idPrefix: string };

/** The list a button acts on, in words, and its item counted from 1 (none for the list's own Add). */
type Target = { readonly list: string; readonly item: number | null };

/**
 * The field and item a button belongs to, read from the id react-jsonschema-form gives it
 * (`<prefix>_<field>[_<index>]__<button>`, fields joined by "_"): the array's last named field, in words.
 */
export function targetOf(id: string | undefined, idPrefix: string): Target {
  const path = (id ?? '').replace(/__[A-Za-z]+$/, '').slice(idPrefix.length + 1);
  const at = /^(?:(.*)_)?(\d+)$/.exec(path);
  const field = (at ? (at[1] ?? '') : path)
    .split('_')
    .filter((s) => !/^\d+$/.test(s))
    .at(-1);
  return { list: field ? fieldWords(field) : 'the list', item: at ? Number(at[2]) + 1 : null };
}

type Words = (t: Target) => readonly [shown: string, name: string];

/** A button that says what it does in words (no icon font ships), its accessible name naming the item and the list too. */
function wordButton(words: Words, look: 'secondary' | 'danger') {
  return function WordButton({ id, className, onClick, disabled, registry }: IconButtonProps<unknown, RJSFSchema, ButtonContext>) {
    const [shown, name] = words(targetOf(id, registry.formContext.idPrefix));
    return (
      <button type="button" id={id} className={`${look} ${className ?? ''}`} onClick={onClick} disabled={disabled} aria-label={name}>
        {shown}
      </button>
    );
  };
}

const itemOf = ({ list, item }: Target) => (item === null ? list : `item ${item} of ${list}`);

/** react-jsonschema-form's array buttons (Add, Remove, Move up and down, Copy) in words: R-WEB-11. */
export const WORD_BUTTONS: Partial<TemplatesType<unknown, RJSFSchema, ButtonContext>['ButtonTemplates']> = {
  AddButton: wordButton(({ list }) => ['Add an item', `Add an item to ${list}`], 'secondary'),
  RemoveButton: wordButton((t) => ['Remove', `Remove ${itemOf(t)}`], 'danger'),
  MoveUpButton: wordButton((t) => ['Move up', `Move up ${itemOf(t)}`], 'secondary'),
  MoveDownButton: wordButton((t) => ['Move down', `Move down ${itemOf(t)}`], 'secondary'),
  CopyButton: wordButton((t) => ['Copy', `Copy ${itemOf(t)}`], 'secondary'),
};
