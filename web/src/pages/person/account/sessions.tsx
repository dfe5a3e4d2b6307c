import { Loaded, Outcome, useAction, useLoad } from '../../../actions';
import { graphql } from '../../../api';
import { navigate } from '../../../navigation';
import { when } from '../../../words';

type Session = { readonly sessionId: string; readonly createdAt: string; readonly expiresAt: string; readonly current: boolean };

/** This session first, then the newest. */
const inOrder = (sessions: readonly Session[]): Session[] =>
  [...sessions].sort((a, b) => Number(b.current) - Number(a.current) || b.createdAt.localeCompare(a.createdAt));

const loadSessions = async (): Promise<Session[]> =>
  inOrder(
    (await graphql<{ user: { me: { sessions: Session[] } } }>('{ user { me { sessions { sessionId createdAt expiresAt current } } } }'))
      .user.me.sessions,
  );

const REVOKE = 'mutation($sessionId: ID!) { user { security { revokeSession(sessionId: $sessionId) } } }';

/** Every live session of the person; revoking one ends it at once, revoking this one signs out. */
export function Sessions() {
  const [load, reload] = useLoad(loadSessions);
  const action = useAction();
  const revoke = (s: Session) =>
    action.run(async () => {
      await graphql(REVOKE, { sessionId: s.sessionId });
      if (s.current) {
        navigate('/sign-in');
        return 'You are signed out.';
      }
      await reload();
      return `The session signed in ${when(s.createdAt)} has ended.`;
    });
  return (
    <section aria-labelledby="sessions">
      <h2 id="sessions">Where you are signed in</h2>
      <p className="note">Each time you sign in, on any device, starts a session. Revoke one you do not recognise.</p>
      <Outcome action={action} />
      <Loaded load={load}>
        {(sessions) => (
          <ul className="person-sessions">
            {sessions.map((s) => (
              <li key={s.sessionId} className="card">
                <p>
                  Signed in {when(s.createdAt)} {s.current && <strong className="tag">This session</strong>}
                </p>
                <p className="meta">Ends {when(s.expiresAt)} unless renewed.</p>
                <button type="button" className="secondary" disabled={action.busy} onClick={() => void revoke(s)}>
                  Revoke
                  <span className="person-hidden">
                    {s.current ? ' this session and sign out' : ` the session signed in ${when(s.createdAt)}`}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </Loaded>
    </section>
  );
}
