import { useEffect, useState } from 'react';
import { graphql, post, Refused } from '../api';
import { navigate } from '../navigation';

type Request = {
  readonly requestId: string;
  readonly organizationName: string;
  readonly manifestName: string;
  readonly state: string;
  readonly createdAt: string;
};

/** A request's state as a person reads it (contract §5 states). */
const STATES: Readonly<Record<string, string>> = {
  pending: 'Waiting for your answer',
  active: 'Shared: you accepted',
  suspended: 'Paused by you',
  revoked: 'Ended by you',
  rejected_by_recipient: 'You said no',
  rejected_by_sender: 'Withdrawn by the organization',
  expired: 'Expired without an answer',
};

const plainState = (state: string) => STATES[state] ?? state.replace(/_/g, ' ');

type Load =
  | { readonly kind: 'loading' }
  | { readonly kind: 'ready'; readonly requests: readonly Request[] }
  | { readonly kind: 'failed'; readonly message: string };

/** Contract §11 /requests: what organizations asked of the signed-in person, and in what state. */
export function Requests() {
  const [load, setLoad] = useState<Load>({ kind: 'loading' });

  useEffect(() => {
    graphql<{ user: { requests: Request[] } }>('{ user { requests { requestId organizationName manifestName state createdAt } } }').then(
      (data) => setLoad({ kind: 'ready', requests: data.user.requests }),
      (e: unknown) => {
        if (e instanceof Refused && e.status === 401) navigate('/sign-in', true);
        else setLoad({ kind: 'failed', message: e instanceof Refused ? e.message : 'The service could not be reached.' });
      },
    );
  }, []);

  const signOut = async () => {
    try {
      await post('/auth/sign-out');
    } finally {
      navigate('/sign-in');
    }
  };

  return (
    <>
      <header className="bar">
        <span className="brand">Data sharing</span>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main className="page">
        <h1>Your requests</h1>
        {load.kind === 'loading' && <p>Loading…</p>}
        {load.kind === 'failed' && (
          <p role="alert" className="error">
            {load.message}
          </p>
        )}
        {load.kind === 'ready' && load.requests.length === 0 && <p>No organization has asked you for anything yet.</p>}
        {load.kind === 'ready' && load.requests.length > 0 && (
          <ul className="requests">
            {load.requests.map((r) => (
              <li key={r.requestId}>
                <h2>{r.organizationName}</h2>
                <p>Asks for: {r.manifestName}</p>
                <p>
                  State: <strong>{plainState(r.state)}</strong>
                </p>
                <p className="meta">Received {new Date(r.createdAt).toLocaleDateString()}</p>
              </li>
            ))}
          </ul>
        )}
      </main>
    </>
  );
}
