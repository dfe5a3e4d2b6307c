import { useState } from 'react';
import type { Verb } from './verbs';

type Props = {
  readonly organization: string;
  readonly state: string;
  readonly busy: boolean;
  readonly onVerb: (verb: Verb) => void;
};

/** The request's own verbs in its state: answer an invitation, or pause, resume or end a connection (revoke asks first). */
export function ConnectionActions({ organization, state, busy, onVerb }: Props) {
  const [confirming, setConfirming] = useState(false);
  if (state === 'pending')
    return (
      <div className="actions">
        <button type="button" disabled={busy} onClick={() => onVerb('accept')}>
          Accept
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => onVerb('reject')}>
          Reject
        </button>
      </div>
    );
  if (state !== 'active' && state !== 'suspended') return null;
  if (confirming)
    return (
      <div className="card confirm" role="group" aria-labelledby="confirm-revoke">
        <p id="confirm-revoke">
          <strong>End this connection with {organization}?</strong> {organization} gets nothing new from you, and you cannot undo it. Copies
          it already kept stay with it; you see them below.
        </p>
        <div className="actions">
          <button type="button" className="danger" disabled={busy} onClick={() => onVerb('revoke')}>
            Yes, revoke
          </button>
          <button type="button" className="secondary" onClick={() => setConfirming(false)}>
            No, keep it
          </button>
        </div>
      </div>
    );
  return (
    <div className="actions">
      {state === 'active' ? (
        <button type="button" className="secondary" disabled={busy} onClick={() => onVerb('suspend')}>
          Suspend
        </button>
      ) : (
        <button type="button" disabled={busy} onClick={() => onVerb('resume')}>
          Resume
        </button>
      )}
      <button type="button" className="danger" disabled={busy} onClick={() => setConfirming(true)}>
        Revoke
      </button>
    </div>
  );
}
