import { Failure, Loaded, useAction, useLoad } from '../../actions';
import { get, post, Refused, type Answer } from '../../api';
import { toSignIn } from '../../navigation';
import { RequestDetail } from '../person/request-detail';

type Asked = Answer<'get', '/oauth/interaction/{uid}/asked'>;
type Opened = Answer<'post', '/oauth/interaction/{uid}/open'>;
type Redirect = Answer<'post', '/oauth/interaction/{uid}/finish'>;

/**
 * Contract §13 /oauth/interaction/{uid}: the hosted consent step of an app's authorization. The
 * signed-in person gets the app's request (or the connection they have already) on the request page,
 * answers it there, and goes back to the app, which then holds a grant naming the request.
 */
export function OAuthConsent({ uid }: { readonly uid: string }) {
  const base = `/oauth/interaction/${encodeURIComponent(uid)}`;
  const [load] = useLoad(async () => {
    const asked = await get<Asked>(`${base}/asked`);
    try {
      return { asked, opened: await post<Opened>(`${base}/open`) };
    } catch (e) {
      // R-PART-07: signed out, where the app's organization signs its people in: the choice is this page's.
      if (e instanceof Refused && e.status === 401 && asked.partnerSignIn) return { asked, opened: null };
      throw e;
    }
  });
  const back = async (to: Promise<Redirect>) => window.location.assign((await to).redirectTo);
  return (
    <Loaded load={load}>
      {({ asked, opened }) =>
        opened === null ? (
          <ChooseSignIn base={base} app={asked.app.name} organization={asked.partnerSignIn?.organization ?? ''} />
        ) : (
          <RequestDetail
            requestId={opened.requestId}
            through={{
              app: asked.app.name,
              onContinue: () => back(post<Redirect>(`${base}/finish`, { requestId: opened.requestId })),
              onDeny: () => back(post<Redirect>(`${base}/deny`)),
            }}
          />
        )
      }
    </Loaded>
  );
}

/** R-PART-07: "Continue with <organization>" (its own sign-in, one click when signed in there) or the email code. */
function ChooseSignIn({ base, app, organization }: { readonly base: string; readonly app: string; readonly organization: string }) {
  const { busy, error, run } = useAction();
  const viaOrganization = () => void run(async () => window.location.assign((await post<Redirect>(`${base}/partner-sign-in`)).redirectTo));
  return (
    <main className="page narrow">
      <h1>Sign in to answer {app}</h1>
      <p>{app} sent you here to ask for your data. Sign in first; then you see what it asks for and choose what to share.</p>
      <div className="actions">
        <button type="button" onClick={viaOrganization} disabled={busy}>
          Continue with {organization}
        </button>
        <button type="button" className="secondary" onClick={toSignIn}>
          Sign in with your email
        </button>
      </div>
      <Failure error={error} />
    </main>
  );
}
