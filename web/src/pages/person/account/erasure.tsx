import { useState, type FormEvent } from 'react';
import { Outcome, useAction } from '../../../actions';
import { graphql, Refused } from '../../../api';
import { navigate } from '../../../navigation';

const REQUEST_ERASURE = 'mutation { user { security { requestErasure } } }';
const ERASE = 'mutation($code: String!) { user { security { eraseAccount(code: $code) } } }';

/** A wrong code answers as a wrong login code (401): it is said here, not taken for a lost session that signs in again. */
const wrongCode = (e: unknown): never => {
  throw e instanceof Refused && e.status === 401 ? new Refused(400, e.code, e.message, e.details) : e;
};

/**
 * Erasure in two steps, so it never happens by a slip: a code is mailed to the login address
 * (security.requestErasure), and only that code, typed in, confirms security.eraseAccount.
 */
export function Erasure() {
  const [asked, setAsked] = useState(false);
  const [code, setCode] = useState('');
  const action = useAction();

  const sendCode = () =>
    action.run(async () => {
      await graphql(REQUEST_ERASURE);
      setAsked(true);
      return 'We mailed you a code. It confirms the erasure; without it nothing happens.';
    });
  const erase = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      await graphql(ERASE, { code: code.trim() }).catch(wrongCode);
      navigate('/sign-in');
    });
  };
  const cancel = () => {
    setAsked(false);
    setCode('');
  };

  return (
    <section aria-labelledby="erase">
      <h2 id="erase">Erase your account</h2>
      <p>
        Erasing destroys the key of your vault, so your documents and files can never be read again, by anyone. It ends every session,
        declines the requests waiting for your answer and revokes those you accepted. This cannot be undone.
      </p>
      {asked ? (
        <form onSubmit={erase}>
          <label htmlFor="erase-code">Code from the mail</label>
          <input
            id="erase-code"
            value={code}
            required
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            onChange={(e) => setCode(e.target.value)}
          />
          <div className="actions">
            <button type="submit" className="danger" disabled={action.busy}>
              Erase account
            </button>
            <button type="button" className="secondary" onClick={cancel}>
              Keep my account
            </button>
          </div>
        </form>
      ) : (
        <div className="actions">
          <button type="button" className="secondary" disabled={action.busy} onClick={() => void sendCode()}>
            Send a code to confirm erasure
          </button>
        </div>
      )}
      <Outcome action={action} />
    </section>
  );
}
