import { useEffect, useState } from 'react';
import { graphql, Refused } from '../../api';
import { Shell } from '../../layout';
import { toSignIn } from '../../navigation';
import { plainState } from '../../words';

type Request = {
  readonly requestId: string;
  readonly organizationName: string;
  readonly manifestName: string;
  readonly state: string;
  readonly createdAt: string;
};

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
        if (e instanceof Refused && e.status === 401) toSignIn();
        else setLoad({ kind: 'failed', message: e instanceof Refused ? e.message : 'The service could not be reached.' });
      },
    );
  }, []);

  return (
    <Shell>
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
    </Shell>
  );
}
