import { AddRecord } from './add-record';
import { isLive, type RequestItem } from './person-data';
import { candidatesFor, recordNameIn, type Candidate, type Vault } from './vault-records';

export type SlotAnswerProps = {
  readonly slot: RequestItem;
  /** The request's state: an invitation is answered as a whole, a live connection slot by slot. */
  readonly state: string;
  readonly vault: Vault;
  /** The records chosen for this slot and not yet shared. */
  readonly chosen: readonly string[];
  readonly onChoose: (resourceIds: readonly string[]) => void;
  /** A record added from here: the page reloads the vault and chooses it. */
  readonly onAdded: (resourceId: string) => Promise<void>;
  readonly onShare: () => void;
  readonly onWithdraw: () => void;
  readonly busy: boolean;
};

/** Under each slot of the consent summary: what the person shares there, and their choice of what to share. */
export function SlotAnswer(props: SlotAnswerProps) {
  const { slot, state } = props;
  if (state === 'pending') return <Choice {...props} />;
  const shared = slot.resourceIds.map((id) => recordNameIn(props.vault)(id) ?? 'a record no longer in your vault');
  const live = isLive(state);
  return (
    <div className="slot-answer">
      <p>
        {shared.length === 0 ? (
          `You ${live ? 'share' : 'shared'} nothing here.`
        ) : (
          <>
            You {live ? 'share' : 'shared'}: <strong>{shared.join(', ')}</strong>
          </>
        )}
      </p>
      {shared.length > 0 && live && (
        <div className="actions">
          <button type="button" className="secondary" disabled={props.busy} onClick={props.onWithdraw}>
            Withdraw {slot.label}
          </button>
        </div>
      )}
      {state === 'active' && (shared.length === 0 || slot.multiple) && (
        <>
          <Choice {...props} />
          <div className="actions">
            <button type="button" disabled={props.busy} onClick={props.onShare}>
              Share {slot.label}
            </button>
          </div>
        </>
      )}
      {state === 'suspended' && <p className="note">Resume the connection to share more here.</p>}
    </div>
  );
}

/** The records of the vault that fit the slot (one, or several for a slot that takes several), and adding one. */
function Choice(props: SlotAnswerProps) {
  const { slot } = props;
  const candidates = candidatesFor(slot, props.vault).filter((c) => !slot.resourceIds.includes(c.id));
  const legend = `What to share as ${slot.label}`;
  return (
    <fieldset className="choice">
      <legend>{legend}</legend>
      {candidates.length === 0 ? (
        <p className="note">Nothing in your vault fits yet: add it here.</p>
      ) : (
        <ul className="candidates">
          {!slot.multiple && <CandidateInput props={props} candidate={{ id: '', name: 'Nothing', detail: 'share nothing here for now' }} />}
          {candidates.map((c) => (
            <CandidateInput key={c.id} props={props} candidate={c} />
          ))}
        </ul>
      )}
      <AddRecord slot={slot} entities={props.vault.entities} onAdded={props.onAdded} />
    </fieldset>
  );
}

/** A checkbox where the slot takes several records, else a radio button ("Nothing" is the empty id). */
function CandidateInput({ props, candidate }: { readonly props: SlotAnswerProps; readonly candidate: Candidate }) {
  const { slot, chosen, onChoose } = props;
  const id = `choose-${slot.slotId}-${candidate.id || 'nothing'}`;
  const checked = candidate.id === '' ? chosen.length === 0 : chosen.includes(candidate.id);
  const toggle = (on: boolean) => {
    if (!slot.multiple) onChoose(candidate.id === '' ? [] : [candidate.id]);
    else onChoose(on ? [...chosen, candidate.id] : chosen.filter((c) => c !== candidate.id));
  };
  return (
    <li>
      <input
        id={id}
        type={slot.multiple ? 'checkbox' : 'radio'}
        name={`choose-${slot.slotId}`}
        checked={checked}
        onChange={(e) => toggle(e.target.checked)}
      />{' '}
      <label htmlFor={id}>
        {candidate.name} <span className="meta">({candidate.detail})</span>
      </label>
    </li>
  );
}
