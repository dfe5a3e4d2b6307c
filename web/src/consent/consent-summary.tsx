import type { ReactNode } from 'react';
import { adoptionWords, retentionWords, schemaWords, verbWords } from '../words';

/** One slot as the person reads it: the Request's item (GraphQL) or a manifest's slot (REST). */
export type SlotView = {
  readonly slotId?: string | null;
  readonly label: string;
  readonly group?: string | null;
  readonly subject?: string | null;
  readonly multiple: boolean;
  readonly kind: string;
  readonly target: string;
  readonly verbs: readonly string[];
  readonly adoption: string;
  readonly required: boolean;
};

export type ConsentSummaryProps<S extends SlotView = SlotView> = {
  readonly organizationName: string;
  readonly purpose: string;
  readonly retention: string;
  readonly slots: readonly S[];
  /** What to show under each slot (the person's choice of what to share), given the slot as passed in and its index. */
  readonly renderSlot?: (slot: S, index: number) => ReactNode;
  /** The line above the facts; by default that the organization asks, as an invitation reads. */
  readonly lead?: ReactNode;
};

/**
 * What an organization asks, in plain words (contract §11): who, why, for how long, and each slot:
 * what data, required or not, and what happens to updates. The person's request page, the
 * organization's manifest preview and the hosted consent page all show it through this component.
 */
export function ConsentSummary<S extends SlotView>({
  organizationName,
  purpose,
  retention,
  slots,
  renderSlot,
  lead,
}: ConsentSummaryProps<S>) {
  return (
    <section className="consent" aria-label={`What ${organizationName} asks for`}>
      <p className="lead">
        {lead ?? (
          <>
            <strong>{organizationName}</strong> asks you to share:
          </>
        )}
      </p>
      <dl className="facts">
        <dt>Why</dt>
        <dd>{purpose || 'The organization did not say.'}</dd>
        <dt>For how long they keep it</dt>
        <dd>{retentionWords(retention)}</dd>
      </dl>
      <ol className="slots">
        {slots.map((slot, index) => (
          <li key={slot.slotId ?? index} className="card">
            <h3>
              {slot.label} <span className={slot.required ? 'tag required' : 'tag'}>{slot.required ? 'Required' : 'Optional'}</span>
            </h3>
            <p>
              {slot.kind === 'file' ? 'A file' : schemaWords(slot.target)}
              {slot.subject ? ` about ${slot.subject}` : ''}
              {slot.multiple ? ' (one or more)' : ''}
            </p>
            <p className="meta">
              {adoptionWords(slot.adoption, slot.verbs)} {verbWords(slot.verbs)}
            </p>
            {renderSlot?.(slot, index)}
          </li>
        ))}
      </ol>
    </section>
  );
}
