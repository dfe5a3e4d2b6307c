import { useEffect } from 'react';
import { Loaded, useLoad } from '../../actions';
import { post, type Answer } from '../../api';
import { CodeSignIn, register } from '../sign-in';

type Completed = Answer<'post', '/oauth/partner-sign-in/complete'>;
type Linked = Answer<'post', '/oauth/partner-sign-in/link'>;

/** Signed in: registered (as the sign-in page does) and on to the app's authorization; else on to the provider's page. */
async function onward({ redirectTo, signedIn }: Linked): Promise<void> {
  if (signedIn) await register();
  window.location.assign(redirectTo);
}

/** The provider's answer is used once (its state is single-use): one call per answer, however often the page renders. */
let completing: { readonly query: string; readonly answer: Promise<Completed> } | null = null;
function complete(query: string): Promise<Completed> {
  if (completing?.query !== query) completing = { query, answer: post<Completed>('/oauth/partner-sign-in/complete', { callback: query }) };
  return completing.answer;
}

/**
 * Contract §13 /oauth/partner-sign-in/callback: where an organization's identity provider sends the
 * person back from "Continue with". A linked sign-in goes straight on to the app's request; a first
 * one asks once for an address's code, which links the two (R-PART-08).
 */
export function PartnerSignInCallback() {
  // The provider's answer travels on to the service in a call of this page's own, where the sign-in's cookie goes along.
  const [load] = useLoad(() => complete(window.location.search.slice(1)));
  return (
    <Loaded load={load} loading="Signing you in…">
      {(step) =>
        'link' in step ? (
          <CodeSignIn
            title={`Link your ${step.link.organization} sign-in`}
            intro={
              `The first time you come with ${step.link.organization}’s sign-in, confirm your email address: we mail you a code. ` +
              `From then on, ${step.link.organization}’s sign-in is enough.`
            }
            initialEmail={step.link.email ?? ''}
            submit="Link and sign in"
            verify={async (email, code) => onward(await post<Linked>('/oauth/partner-sign-in/link', { email, code }))}
          />
        ) : (
          <Onward step={step} />
        )
      }
    </Loaded>
  );
}

function Onward({ step }: { readonly step: Linked }) {
  useEffect(() => {
    void onward(step);
  }, [step]);
  return <p aria-live="polite">Signing you in…</p>;
}
