import { useEffect, useState, type ReactNode } from 'react';
import { get, post } from './api';
import { Link, navigate } from './navigation';

export type Membership = { readonly organizationId: string; readonly name: string; readonly permissions: readonly string[] };

/** The caller's organizations (GET /org/v1/organizations); empty until known or when signed out. */
export function useMemberships(): readonly Membership[] {
  const [memberships, setMemberships] = useState<readonly Membership[]>([]);
  useEffect(() => {
    get<{ organizations: Membership[] }>('/org/v1/organizations').then(
      (l) => setMemberships(l.organizations),
      () => setMemberships([]),
    );
  }, []);
  return memberships;
}

/** The person's places (contract §11), in the header of every page. */
const PLACES = [
  ['/requests', 'Requests'],
  ['/vault', 'Vault'],
  ['/account', 'Account'],
  ['/organizations', 'Organizations'],
] as const;

/**
 * Every signed-in page's frame: a skip link, the header with the person's places and their
 * organizations, Sign out, and the page's own content in <main>.
 */
export function Shell({ children, organizationId }: { readonly children: ReactNode; readonly organizationId?: string }) {
  const memberships = useMemberships();
  const signOut = async () => {
    try {
      await post('/auth/sign-out');
    } finally {
      navigate('/sign-in');
    }
  };
  return (
    <>
      <a className="skip" href="#content">
        Skip to content
      </a>
      <header className="bar">
        <span className="brand">Data sharing</span>
        <nav aria-label="Main">
          <ul className="nav">
            {PLACES.map(([to, name]) => (
              <li key={to}>
                <Link to={to}>{name}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      {organizationId && <OrgNav organizationId={organizationId} memberships={memberships} />}
      <main className="page" id="content" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

/** An organization's pages (contract §11), and a switch to the member's other organizations. */
function OrgNav({ organizationId, memberships }: { readonly organizationId: string; readonly memberships: readonly Membership[] }) {
  const current = memberships.find((m) => m.organizationId === organizationId);
  return (
    <nav className="orgbar" aria-label="Organization">
      <label htmlFor="org-switch">Organization</label>
      <select id="org-switch" value={organizationId} onChange={(e) => navigate(`/org/${e.target.value}/requests`)}>
        {!current && <option value={organizationId}>…</option>}
        {memberships.map((m) => (
          <option key={m.organizationId} value={m.organizationId}>
            {m.name}
          </option>
        ))}
      </select>
      <ul className="nav">
        {(['requests', 'manifests', 'members', 'settings'] as const).map((p) => (
          <li key={p}>
            <Link to={`/org/${organizationId}/${p}`}>{p.charAt(0).toUpperCase() + p.slice(1)}</Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
