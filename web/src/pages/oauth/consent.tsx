import { Loaded, useLoad } from '../../actions';
import { get, post, type Answer } from '../../api';
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
    return { asked, opened: await post<Opened>(`${base}/open`) };
  });
  const back = async (to: Promise<Redirect>) => window.location.assign((await to).redirectTo);
  return (
    <Loaded load={load}>
      {({ asked, opened }) => (
        <RequestDetail
          requestId={opened.requestId}
          through={{
            app: asked.app.name,
            onContinue: () => back(post<Redirect>(`${base}/finish`, { requestId: opened.requestId })),
            onDeny: () => back(post<Redirect>(`${base}/deny`)),
          }}
        />
      )}
    </Loaded>
  );
}
