import type { Schemas } from '@dss/sdk';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Failure, useAction } from './actions';
import { get, post, Refused, type Answer } from './api';
import { Link, navigate } from './navigation';

type Membership = Schemas['Membership'];

/** The caller's organizations (GET /org/v1/organizations); empty until known or when signed out. */
export function useMemberships(): readonly Membership[] {
  const [memberships, setMemberships] = useState<readonly Membership[]>([]);
  useEffect(() => {
    get<Answer<'get', '/org/v1/organizations'>>('/org/v1/organizations').then(
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
  const { busy, error, run } = useAction();
  // Only a session ended for sure goes to sign in; a 401 says it had ended already. Any other failure shows.
  const signOut = () =>
    void run(async () => {
      await post('/auth/sign-out').catch((e: unknown) => {
        if (!(e instanceof Refused && e.status === 401)) throw e;
      });
      navigate('/sign-in');
    });
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
        <button type="button" className="secondary" disabled={busy} onClick={signOut}>
          Sign out
        </button>
      </header>
      {error && (
        <div className="bar-failure">
          <Failure error={`Signing out failed: ${error}`} />
        </div>
      )}
      {organizationId && <OrgNav organizationId={organizationId} memberships={memberships} />}
      <main className="page" id="content" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

type OrgProps = { readonly organizationId: string; readonly memberships: readonly Membership[] };

/** An organization's pages (contract §11), and a switch to the member's other organizations. */
function OrgNav({ organizationId, memberships }: OrgProps) {
  return (
    <nav className="orgbar" aria-label="Organization">
      <OrgSwitch organizationId={organizationId} memberships={memberships} />
      <ul className="nav">
        {(['requests', 'manifests', 'members', 'settings', 'webhooks'] as const).map((p) => (
          <li key={p}>
            <Link to={`/org/${organizationId}/${p}`}>{p.charAt(0).toUpperCase() + p.slice(1)}</Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Choosing an organization changes nothing until Go (WCAG 3.2.2: no change of page on a choice alone). */
function OrgSwitch({ organizationId, memberships }: OrgProps) {
  const [chosen, setChosen] = useState(organizationId);
  const go = (e: FormEvent) => {
    e.preventDefault();
    navigate(`/org/${chosen}/requests`);
  };
  return (
    <form className="org-switch" aria-label="Switch organization" onSubmit={go}>
      <label htmlFor="org-switch">Organization</label>
      <select id="org-switch" value={chosen} onChange={(e) => setChosen(e.target.value)}>
        {!memberships.some((m) => m.organizationId === organizationId) && <option value={organizationId}>…</option>}
        {memberships.map((m) => (
          <option key={m.organizationId} value={m.organizationId}>
            {m.name}
          </option>
        ))}
      </select>
      <button type="submit" className="secondary">
        Go
      </button>
    </form>
  );
}
