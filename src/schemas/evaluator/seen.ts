import type { DataError } from '../results.js';

/** The annotations `unevaluatedProperties` and `unevaluatedItems` read: what was evaluated. */
export class Seen {
  readonly props = new Set<string>();
  readonly items = new Set<number>();
  allItems = false;
  prefix = 0;

  merge(other: Seen): void {
    for (const p of other.props) this.props.add(p);
    for (const i of other.items) this.items.add(i);
    this.allItems ||= other.allItems;
    this.prefix = Math.max(this.prefix, other.prefix);
  }

  hasItem(index: number): boolean {
    return this.allItems || index < this.prefix || this.items.has(index);
  }
}

/** A subschema's verdict; its annotations count only when it is valid. */
export type Outcome = { readonly valid: boolean; readonly errors: DataError[]; readonly seen: Seen };

export function passed(seen: Seen = new Seen()): Outcome {
  return { valid: true, errors: [], seen };
}

export function failed(errors: DataError[]): Outcome {
  return { valid: false, errors, seen: new Seen() };
}
