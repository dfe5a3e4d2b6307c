import { useEffect, useState, type FormEvent } from 'react';
import { Failure, useAction } from '../actions';
import { graphql, hasMailbox, post } from '../api';
import { afterSignIn, navigate } from '../navigation';

type Step = { readonly kind: 'email' } | { readonly kind: 'code'; readonly email: string };

/** The account is registered (user.register returns the same account when it exists) before any page of it is shown. */
export const register = () => graphql('mutation { user { register(input: {}) { userId } } }');

/**
 * Contract §11 /sign-in: an address, then the code mailed to it; the session comes back as a
 * cookie the page cannot read, and the person is registered before their requests are shown.
 */
export function SignIn() {
  return (
    <CodeSignIn
      title="Sign in"
      verify={async (email, code) => {
        await post('/auth/verify-otp', { email, code });
        await register();
        navigate(afterSignIn());
      }}
    />
  );
}

/**
 * An address, then the code mailed to it, which `verify` turns into a session: the sign-in page's,
 * or a first "Continue with <organization>"'s, which links that sign-in too (contract §13).
 */
export function CodeSignIn({
  title,
  intro,
  initialEmail = '',
  submit = 'Sign in',
  verify,
}: {
  readonly title: string;
  readonly intro?: string;
  readonly initialEmail?: string;
  readonly submit?: string;
  readonly verify: (email: string, code: string) => Promise<void>;
}) {
  const [step, setStep] = useState<Step>({ kind: 'email' });
  const [email, setEmail] = useState(initialEmail);
  const [code, setCode] = useState('');
  const { busy, error, run } = useAction();
  const [mailbox, setMailbox] = useState(false);

  useEffect(() => {
    void hasMailbox().then(setMailbox);
  }, []);

  const sendCode = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await post('/auth/send-otp', { email });
      setCode('');
      setStep({ kind: 'code', email });
    });
  };

  const signIn = (e: FormEvent) => {
    e.preventDefault();
    if (step.kind !== 'code') return;
    void run(() => verify(step.email, code.trim()));
  };

  return (
    <main className="page narrow">
      <h1>{title}</h1>
      {intro && <p>{intro}</p>}
      {step.kind === 'email' ? (
        <form onSubmit={sendCode}>
          <label htmlFor="email">Email address</label>
          <input id="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <button type="submit" disabled={busy}>
            Send code
          </button>
        </form>
      ) : (
        <form onSubmit={signIn}>
          <p>We sent a sign-in code to {step.email}. It works for a few minutes.</p>
          <label htmlFor="code">Code from the mail</label>
          <input
            id="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            required
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
          <button type="submit" disabled={busy}>
            {submit}
          </button>
          <button type="button" className="secondary" onClick={() => setStep({ kind: 'email' })}>
            Use another address
          </button>
        </form>
      )}
      <Failure error={error} />
      {mailbox && (
        <p className="note">
          Running on the embedded default: mails are not sent but kept in the{' '}
          <a href="/dev/mailbox" target="_blank" rel="noopener">
            development mailbox
          </a>
          .
        </p>
      )}
    </main>
  );
}
