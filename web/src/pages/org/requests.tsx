import type { Request } from '@dss/sdk';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Failure, useAction } from '../../actions';
import type { Answer } from '../../api';
import { REQUEST_STATES } from '../../../../src/requests/request-status';
import { Link } from '../../navigation';
import { day, orgState } from '../../words';
import type { OrgSession } from './org-session';
import { SendInvitation } from './request/send-invitation';

/** How many requests a page of the list asks for (§10.6: the route pages them, newest first). */
const PAGE = 20;
/** The states the filter offers: the service's own list, which the document's `state` enum also names. */
const STATES = REQUEST_STATES satisfies readonly Request['state'][];

/** The requests loaded so far, and where the route's next page starts. */
type Listed = Answer<'get', '/org/v1/requests'>;

/**
 * Contract §11 /org/{organizationId}/requests: the organization's requests, newest first, a page at
 * a time (the route's cursor), to one address and in one state (the route's email and state
 * filters, R-REQ-32); Send invitation with request_manage.
 */
export function OrgRequests({ org }: { readonly org: OrgSession }) {
  const [email, setEmail] = useState('');
  const [state, setState] = useState('');
  const [applied, setApplied] = useState({ email: '', state: '' });
  const [listed, setListed] = useState<Listed | null>(null);
  const { busy, error, run } = useAction();

  const page = useCallback(
    async (cursor: string | null): Promise<Listed> => {
      const query = new URLSearchParams({ limit: String(PAGE) });
      if (applied.email) query.set('email', applied.email);
      if (applied.state) query.set('state', applied.state);
      if (cursor) query.set('cursor', cursor);
      return org.api.get<Listed>(`/org/v1/requests?${query.toString()}`);
    },
    [org.api, applied],
  );
  const load = useCallback(
    (more: Listed | null) =>
      run(async () => {
        const next = await page(more?.nextCursor ?? null);
        setListed({ requests: [...(more?.requests ?? []), ...next.requests], nextCursor: next.nextCursor });
      }),
    [page, run],
  );
  useEffect(() => {
    void load(null);
  }, [load]);

  const filter = (e: FormEvent) => {
    e.preventDefault();
    // The loaded requests answer the filters before: none shows until the route answers these.
    setListed(null);
    setApplied({ email: email.trim(), state });
  };

  return (
    <>
      <h1>Requests</h1>
      {org.can('request_manage') && <SendInvitation org={org} onSent={() => void load(null)} />}
      <form className="filters" onSubmit={filter} aria-label="Filter the requests">
        <div>
          <label htmlFor="filter-state">State</label>
          <select id="filter-state" value={state} onChange={(e) => setState(e.target.value)}>
            <option value="">Any state</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {orgState(s)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="filter-email">Recipient’s email</label>
          <input id="filter-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
        </div>
        <div className="actions">
          <button type="submit" className="secondary">
            Filter
          </button>
        </div>
      </form>
      <Failure error={error} />
      {listed && (
        <>
          <p className="meta" aria-live="polite">
            {listed.requests.length} requests{listed.nextCursor ? ' so far' : ''}
            {applied.state ? ` in the state “${orgState(applied.state)}”` : ''}.
          </p>
          <ul className="requests">
            {listed.requests.map((r) => (
              <li key={r.requestId}>
                <h2>
                  <Link to={`/org/${org.organizationId}/requests/${r.requestId}`}>{r.recipientEmail}</Link>
                </h2>
                <p>
                  {r.manifestName} (version {r.manifestVersion})
                </p>
                <p>
                  State: <strong>{orgState(r.state)}</strong>
                </p>
                <p className="meta">
                  Sent {day(r.createdAt)}
                  {r.state === 'pending' ? `; the invitation ends ${day(r.invitationExpiresAt)}` : ''}
                </p>
              </li>
            ))}
          </ul>
          {listed.nextCursor && (
            <div className="actions">
              <button type="button" className="secondary" disabled={busy} onClick={() => void load(listed)}>
                Show more requests
              </button>
            </div>
          )}
        </>
      )}
      {!listed && !error && <p aria-live="polite">Loading…</p>}
    </>
  );
}
