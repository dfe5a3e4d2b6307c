import { lazy, Suspense, useEffect, type ComponentType, type ReactNode } from 'react';
import { navigate, usePath } from './navigation';
import { OrgPage } from './pages/org/org-session';
import { Requests } from './pages/person/requests';
import { SignIn } from './pages/sign-in';
import { Shell } from './layout';

/** A page loaded when first opened: the forms' code (react-jsonschema-form) stays out of sign-in and the lists. */
const later = <P,>(load: () => Promise<Record<string, ComponentType<P>>>, name: string) =>
  lazy(async () => ({ default: (await load())[name]! }));

const Manifests = later(() => import('./pages/org/manifests'), 'Manifests');
const Members = later(() => import('./pages/org/members'), 'Members');
const Organizations = later(() => import('./pages/org/organizations'), 'Organizations');
const OrgRequestDetail = later(() => import('./pages/org/request-detail'), 'OrgRequestDetail');
const OrgRequests = later(() => import('./pages/org/requests'), 'OrgRequests');
const Settings = later(() => import('./pages/org/settings'), 'Settings');
const Account = later(() => import('./pages/person/account'), 'Account');
const RequestDetail = later(() => import('./pages/person/request-detail'), 'RequestDetail');
const Vault = later(() => import('./pages/person/vault'), 'Vault');

type Route = { readonly title: string; readonly page: ReactNode };

const UUID = '([0-9a-fA-F-]{36})';
const ID = '([A-Za-z0-9-]{1,64})';
const ORG_PAGES = { manifests: Manifests, members: Members, settings: Settings, requests: OrgRequests } as const;

/** The pages of contract §11, by path (src/api/web/pages.ts serves index.html at each). */
function route(path: string): Route {
  const p = path.length > 1 ? path.replace(/\/$/, '') : path;
  if (p === '/sign-in') return { title: 'Sign in', page: <SignIn /> };
  if (p === '/requests' || p === '/') return { title: 'Your requests', page: <Requests /> };
  if (p === '/vault') return { title: 'Your vault', page: <Vault /> };
  if (p === '/account') return { title: 'Your account', page: <Account /> };
  if (p === '/organizations') return { title: 'Your organizations', page: <Organizations /> };
  const request = new RegExp(`^/requests/${ID}$`).exec(p);
  if (request) return { title: 'Request', page: <RequestDetail key={request[1]} requestId={request[1]} /> };
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
  const orgPage = new RegExp(`^/org/${UUID}(?:/(requests|manifests|members|settings))?$`).exec(p);
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
