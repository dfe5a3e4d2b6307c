import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { navigate, usePath } from './navigation';
import { OrgPage } from './pages/org/org-session';
import { Requests } from './pages/person/requests';
import { SignIn } from './pages/sign-in';
import { Shell } from './layout';

// Pages loaded when first opened: the forms' code (react-jsonschema-form) stays out of sign-in and the lists.
const Manifests = lazy(() => import('./pages/org/manifests').then((m) => ({ default: m.Manifests })));
const Members = lazy(() => import('./pages/org/members').then((m) => ({ default: m.Members })));
const Organizations = lazy(() => import('./pages/org/organizations').then((m) => ({ default: m.Organizations })));
const OrgRequestDetail = lazy(() => import('./pages/org/request-detail').then((m) => ({ default: m.OrgRequestDetail })));
const OrgRequests = lazy(() => import('./pages/org/requests').then((m) => ({ default: m.OrgRequests })));
const Settings = lazy(() => import('./pages/org/settings').then((m) => ({ default: m.Settings })));
const Webhooks = lazy(() => import('./pages/org/webhooks').then((m) => ({ default: m.Webhooks })));
const Account = lazy(() => import('./pages/person/account').then((m) => ({ default: m.Account })));
const RequestDetail = lazy(() => import('./pages/person/request-detail').then((m) => ({ default: m.RequestDetail })));
const Vault = lazy(() => import('./pages/person/vault').then((m) => ({ default: m.Vault })));
const OAuthConsent = lazy(() => import('./pages/oauth/consent').then((m) => ({ default: m.OAuthConsent })));
const PartnerSignInCallback = lazy(() => import('./pages/oauth/partner-sign-in').then((m) => ({ default: m.PartnerSignInCallback })));

type Route = { readonly title: string; readonly page: ReactNode };

const UUID = '([0-9a-fA-F-]{36})';
const ID = '([A-Za-z0-9-]{1,64})';
const ORG_PAGES = { manifests: Manifests, members: Members, settings: Settings, requests: OrgRequests, webhooks: Webhooks } as const;

/** The pages of contract §11, by path (src/api/web/pages.ts serves index.html at each). */
function route(path: string): Route {
  const p = path.length > 1 ? path.replace(/\/$/, '') : path;
  if (p === '/sign-in') return { title: 'Sign in', page: <SignIn /> };
  if (p === '/requests' || p === '/') return { title: 'Your requests', page: <Requests /> };
  if (p === '/vault') return { title: 'Your vault', page: <Vault /> };
  if (p === '/account') return { title: 'Your account', page: <Account /> };
  if (p === '/organizations') return { title: 'Your organizations', page: <Organizations /> };
  if (p === '/oauth/partner-sign-in/callback') return { title: 'Signing in', page: <PartnerSignInCallback /> };
  const uid = /^\/oauth\/interaction\/([\w-]{1,128})$/.exec(p)?.[1];
  if (uid) return { title: 'Share with an app', page: <OAuthConsent key={uid} uid={uid} /> };
  const requestId = new RegExp(`^/requests/${ID}$`).exec(p)?.[1];
  if (requestId) return { title: 'Request', page: <RequestDetail key={requestId} requestId={requestId} /> };
  const orgRequest = new RegExp(`^/org/${UUID}/requests/${ID}$`).exec(p);
  if (orgRequest) {
    const [, organizationId, requestId] = orgRequest as unknown as [string, string, string];
    return {
      title: 'Request',
      page: (
        <OrgPage key={organizationId} organizationId={organizationId}>
          {(org) => <OrgRequestDetail key={requestId} org={org} requestId={requestId} />}
        </OrgPage>
      ),
    };
  }
  const orgPage = new RegExp(`^/org/${UUID}(?:/(requests|manifests|members|settings|webhooks))?$`).exec(p);
  if (orgPage) {
    const [, organizationId, which = 'requests'] = orgPage as unknown as [string, string, keyof typeof ORG_PAGES | undefined];
    const Page = ORG_PAGES[which];
    return {
      title: which.charAt(0).toUpperCase() + which.slice(1),
      page: (
        <OrgPage key={organizationId} organizationId={organizationId}>
          {(org) => <Page key={which} org={org} />}
        </OrgPage>
      ),
    };
  }
  return { title: 'Not found', page: <NotFound path={p} /> };
}

export function App() {
  const path = usePath();
  const { title, page } = route(path);
  useEffect(() => {
    if (path === '/') navigate('/requests', true);
  }, [path]);
  useEffect(() => {
    document.title = `${title} · Data sharing`;
    // A page change moves focus to the new page's content, as a full load would for a screen reader.
    document.getElementById('content')?.focus({ preventScroll: true });
  }, [path, title]);
  return <Suspense fallback={<p aria-live="polite">Loading…</p>}>{page}</Suspense>;
}

function NotFound({ path }: { readonly path: string }) {
  return (
    <Shell>
      <h1>Page not found</h1>
      <p>
        There is no page at <code>{path}</code>.
      </p>
    </Shell>
  );
}
