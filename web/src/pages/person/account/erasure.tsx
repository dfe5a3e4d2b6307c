import { useState, type FormEvent } from 'react';
import { graphql, messageOf } from '../../../api';
import { navigate } from '../../../navigation';

type Step = { readonly kind: 'start' } | { readonly kind: 'code' } | { readonly kind: 'erasing' };

/**
 * Erasure in two steps, so it never happens by a slip: a code is mailed to the login address
 * (security.requestErasure), and only that code, typed in, confirms security.eraseAccount.
 */
export function Erasure() {
  const [step, setStep] = useState<Step>({ kind: 'start' });
  const [code, setCode] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const sendCode = async () => {
    setFailure(null);
    try {
      await graphql('mutation { user { security { requestErasure } } }');
      setStep({ kind: 'code' });
      setNotice('We mailed you a code. It confirms the erasure; without it nothing happens.');
    } catch (e) {
      setFailure(messageOf(e));
    }
  };
  // A wrong code answers as a wrong login code (UNAUTHENTICATED): said here, not taken for a lost session.
  const erase = async (e: FormEvent) => {
    e.preventDefault();
    setFailure(null);
    setStep({ kind: 'erasing' });
    try {
      await graphql('mutation($code: String!) { user { security { eraseAccount(code: $code) } } }', { code: code.trim() });
      navigate('/sign-in');
    } catch (err) {
      setStep({ kind: 'code' });
      setFailure(messageOf(err));
    }
  };
  const cancel = () => {
    setStep({ kind: 'start' });
    setCode('');
    setNotice(null);
    setFailure(null);
  };

  return (
    <section aria-labelledby="erase">
      <h2 id="erase">Erase your account</h2>
      <p>
        Erasing destroys the key of your vault, so your documents and files can never be read again, by anyone. It ends every session,
        declines the requests waiting for your answer and revokes those you accepted. This cannot be undone.
      </p>
      <p role="status" className="ok">
        {notice}
      </p>
      {step.kind === 'start' ? (
        <div className="actions">
          <button type="button" className="secondary" onClick={() => void sendCode()}>
            Send a code to confirm erasure
          </button>
        </div>
      ) : (
        <form onSubmit={(e) => void erase(e)}>
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
            <button type="submit" className="danger" disabled={step.kind === 'erasing'}>
              Erase account
            </button>
            <button type="button" className="secondary" onClick={cancel}>
              Keep my account
            </button>
          </div>
        </form>
      )}
      {failure && (
        <p role="alert" className="error">
          {failure}
        </p>
      )}
    </section>
  );
}
