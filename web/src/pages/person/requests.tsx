import { useState } from 'react';
import { Loaded, useLoad } from '../../actions';
import { graphql } from '../../api';
import { HISTORY_FIELDS, type HistoryEntry } from '../../history';
import { Shell } from '../../layout';
import { Link } from '../../navigation';
import { day, plainState } from '../../words';
import { inLogOrder, toldOf } from './request/history-words';
import { isInvitation, isLive, mayHaveAccepted, REQUEST_FIELDS, wasAccepted, type PersonRequest } from './request/person-data';
import { RECORD_NAME_FIELDS, type RecordNames } from './request/vault-records';
import { Dealings } from './request/who-holds-what';

type Overview = {
  readonly requests: readonly PersonRequest[];
  readonly records: RecordNames;
  /** The history of every request the person may have accepted, by request id. */
  readonly histories: ReadonlyMap<string, readonly HistoryEntry[]>;
  /** The requests the person accepted at some point. */
  readonly accepted: ReadonlySet<string>;
};

const OVERVIEW = `{ user { requests { ${REQUEST_FIELDS} } ${RECORD_NAME_FIELDS} } }`;

/**
 * R-GQL-07: the service refuses a query selecting more than 200 fields. Each history is an alias of
 * `requestHistory` with its fields, all under one `user`: so many fit in one query.
 */
const MAX_QUERY_FIELDS = 200;
const FIELDS_PER_HISTORY = 1 + HISTORY_FIELDS.split(' ').length;
const HISTORIES_PER_QUERY = Math.floor((MAX_QUERY_FIELDS - 1) / FIELDS_PER_HISTORY);

/** The histories of these requests, as many in each query as the limit allows, the queries sent together. */
async function historiesOf(requestIds: readonly string[]): Promise<Map<string, readonly HistoryEntry[]>> {
  const batches: (readonly string[])[] = [];
  for (let i = 0; i < requestIds.length; i += HISTORIES_PER_QUERY) batches.push(requestIds.slice(i, i + HISTORIES_PER_QUERY));
  const answered = await Promise.all(
    batches.map(async (ids) => {
      const query = `query(${ids.map((_, i) => `$r${i}: ID!`).join(', ')}) { user { ${ids
        .map((_, i) => `h${i}: requestHistory(requestId: $r${i}) { ${HISTORY_FIELDS} }`)
        .join(' ')} } }`;
      const { user } = await graphql<{ user: Record<string, HistoryEntry[]> }>(
        query,
        Object.fromEntries(ids.map((id, i) => [`r${i}`, id])),
      );
      return ids.map((id, i) => [id, user[`h${i}`] ?? []] as const);
    }),
  );
  return new Map(answered.flat());
}

/** The list, then the history of each request the person may have accepted: it says who holds what, and what an expiry ended. */
async function overview(): Promise<Overview> {
  const { user } = await graphql<{ user: RecordNames & { requests: PersonRequest[] } }>(OVERVIEW);
  const histories = await historiesOf(user.requests.filter(mayHaveAccepted).map((r) => r.requestId));
  const accepted = user.requests.filter((r) => wasAccepted(r, histories.get(r.requestId) ?? [])).map((r) => r.requestId);
  return { requests: user.requests, records: user, histories, accepted: new Set(accepted) };
}

/** The organization the list is narrowed to, kept in the address (?organization=) so it can be linked to. */
function useOrganizationFilter(): [string, (organizationId: string) => void] {
  const [chosen, setChosen] = useState(() => new URLSearchParams(window.location.search).get('organization') ?? '');
  const choose = (organizationId: string) => {
    setChosen(organizationId);
    window.history.replaceState(null, '', organizationId ? `/requests?organization=${encodeURIComponent(organizationId)}` : '/requests');
  };
  return [chosen, choose];
}

/**
 * Contract §11 /requests: the invitations waiting for the person's answer, their connections, and
 * who holds what by organization; each entry links to the request's own page.
 */
export function Requests() {
  const [load] = useLoad(overview);
  const [organizationId, setOrganizationId] = useOrganizationFilter();

  return (
    <Shell>
      <h1>Your requests</h1>
      <p className="note">
        Organizations ask you to share information with them. Open one to answer it, see what it holds, or change your mind.
      </p>
      <Loaded load={load}>
        {(o) => {
          const { requests } = o;
          if (requests.length === 0) return <p>No organization has asked you for anything yet.</p>;
          const shown = organizationId ? requests.filter((r) => r.organizationId === organizationId) : requests;
          return (
            <>
              <OrganizationFilter requests={requests} chosen={organizationId} onChoose={setOrganizationId} />
              <RequestList
                title="Invitations"
                empty="Nothing is waiting for your answer."
                requests={shown.filter((r) => isInvitation(r.state))}
                accepted={o.accepted}
              />
              <RequestList
                title="Your connections"
                empty="You have not shared anything here yet."
                requests={shown.filter((r) => !isInvitation(r.state))}
                accepted={o.accepted}
              />
              <WhoHoldsWhat overview={{ ...o, requests: shown }} onChoose={setOrganizationId} />
            </>
          );
        }}
      </Loaded>
    </Shell>
  );
}

/** The organizations in the order they first asked, each once. */
function organizationsOf(requests: readonly PersonRequest[]): { organizationId: string; name: string }[] {
  const seen = new Map<string, string>();
  for (const r of requests) if (!seen.has(r.organizationId)) seen.set(r.organizationId, r.organizationName);
  return [...seen].map(([organizationId, name]) => ({ organizationId, name }));
}

function OrganizationFilter(props: {
  readonly requests: readonly PersonRequest[];
  readonly chosen: string;
  readonly onChoose: (organizationId: string) => void;
}) {
  return (
    <p className="filter">
      <label htmlFor="organization-filter">Show requests from</label>{' '}
      <select id="organization-filter" value={props.chosen} onChange={(e) => props.onChoose(e.target.value)}>
        <option value="">every organization</option>
        {organizationsOf(props.requests).map((o) => (
          <option key={o.organizationId} value={o.organizationId}>
            {o.name}
          </option>
        ))}
      </select>
    </p>
  );
}

function RequestList({
  title,
  empty,
  requests,
  accepted,
}: {
  readonly title: string;
  readonly empty: string;
  readonly requests: readonly PersonRequest[];
  readonly accepted: ReadonlySet<string>;
}) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {requests.length === 0 ? (
        <p className="note">{empty}</p>
      ) : (
        <ul className="requests">
          {requests.map((r) => (
            <RequestEntry key={r.requestId} request={r} accepted={accepted.has(r.requestId)} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** What the slots hold now, in words: "Name, Passport", or that nothing is shared. */
const sharedWords = (r: PersonRequest): string => {
  const shared = r.items.filter((i) => i.status === 'granted').map((i) => i.label);
  return shared.length > 0 ? shared.join(', ') : 'nothing';
};

function RequestEntry({ request: r, accepted }: { readonly request: PersonRequest; readonly accepted: boolean }) {
  return (
    <li>
      <h3>{r.organizationName}</h3>
      <p>
        <Link to={`/requests/${r.requestId}`}>{r.manifestName}</Link>
        {r.purpose ? `: ${r.purpose}` : ''}
      </p>
      <p>
        <strong>{plainState(r.state, accepted)}</strong>
      </p>
      {isInvitation(r.state) ? (
        <p className="meta">
          Received {day(r.createdAt)}
          {r.invitationExpiresAt ? `; answer by ${day(r.invitationExpiresAt)}` : ''}
        </p>
      ) : (
        accepted && (
          <p className="meta">
            {isLive(r.state) ? 'You share' : 'You shared'}: {sharedWords(r)}
          </p>
        )
      )}
    </li>
  );
}

/**
 * Who holds what: per organization the person said yes to, what it is given now, its connections by
 * state, and from their histories merged in log order the copies it keeps, what waits for it, what it
 * deleted and read, and everything that happened.
 */
function WhoHoldsWhat({ overview, onChoose }: { readonly overview: Overview; readonly onChoose: (organizationId: string) => void }) {
  const connected = overview.requests.filter((r) => overview.accepted.has(r.requestId));
  const organizations = organizationsOf(connected);
  if (organizations.length === 0) return null;
  return (
    <section aria-label="Who holds what">
      <h2>Who holds what</h2>
      {organizations.map((o) => {
        const theirs = connected.filter((r) => r.organizationId === o.organizationId);
        const shared = theirs
          .filter((r) => isLive(r.state))
          .map(sharedWords)
          .filter((w) => w !== 'nothing');
        const told = inLogOrder(
          theirs.flatMap((r) => toldOf(r, overview.records, overview.histories.get(r.requestId) ?? [], r.manifestName)),
        );
        return (
          <section key={o.organizationId} className="card who-holds-what" aria-label={o.name}>
            <h3>{o.name}</h3>
            <p>You share with them now: {shared.length > 0 ? shared.join('; ') : 'nothing'}.</p>
            <p>Connections: {countsWords(theirs)}.</p>
            <Dealings organization={o.name} told={told} level={4} folded />
            <button type="button" className="secondary" onClick={() => onChoose(o.organizationId)}>
              Show only {o.name}
            </button>
          </section>
        );
      })}
    </section>
  );
}

/** A connection's state in a count: "2 active, 1 ended by you" (every one counted here was accepted). */
const COUNTED: Readonly<Record<string, string>> = {
  active: 'active',
  suspended: 'paused',
  revoked: 'ended by you',
  expired: 'ended as their time ran out',
};

function countsWords(requests: readonly PersonRequest[]): string {
  const counts = new Map<string, number>();
  for (const r of requests) counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
  return [...counts].map(([state, n]) => `${n} ${COUNTED[state] ?? plainState(state, true).toLowerCase()}`).join(', ');
}
