import { useState } from 'react';
import { Loaded, useLoad } from '../../actions';
import { Shell } from '../../layout';
import { Link } from '../../navigation';
import { day, plainState } from '../../words';
import { HISTORY_FIELDS, type HistoryEntry } from '../../history';
import { holdingSentences, holdingsOf, readsWords } from './request/history-words';
import { isInvitation, isLive, personQuery, REQUEST_FIELDS, type PersonRequest, type Receipt } from './request/person-data';
import { RECORD_NAME_FIELDS, recordNameIn, type RecordNames } from './request/vault-records';

type Overview = {
  readonly requests: readonly PersonRequest[];
  readonly receipts: readonly Receipt[];
  readonly records: RecordNames;
  /** The history of every connection the person accepted, by request id. */
  readonly histories: ReadonlyMap<string, readonly HistoryEntry[]>;
};

const OVERVIEW = `{ user { requests { ${REQUEST_FIELDS} } receipts { resourceId version organizationId readAt } ${RECORD_NAME_FIELDS} } }`;

/** Connections the person accepted at some point (an invitation answered no, or withdrawn, gave nothing). */
const wasAccepted = (r: PersonRequest): boolean =>
  !isInvitation(r.state) && r.state !== 'rejected_by_recipient' && r.state !== 'rejected_by_sender';

/** The list, then in one more call the history of each accepted connection (one alias per request). */
async function overview(): Promise<Overview> {
  const { user } = await personQuery<{ user: Omit<Overview, 'histories' | 'records'> & RecordNames }>(OVERVIEW);
  const accepted = user.requests.filter(wasAccepted);
  const histories =
    accepted.length === 0
      ? {}
      : (
          await personQuery<{ user: Record<string, HistoryEntry[]> }>(
            `query(${accepted.map((_, i) => `$r${i}: ID!`).join(', ')}) { user { ${accepted
              .map((_, i) => `h${i}: requestHistory(requestId: $r${i}) { ${HISTORY_FIELDS} }`)
              .join(' ')} } }`,
            Object.fromEntries(accepted.map((r, i) => [`r${i}`, r.requestId])),
          )
        ).user;
  return {
    requests: user.requests,
    receipts: user.receipts,
    records: user,
    histories: new Map(accepted.map((r, i) => [r.requestId, histories[`h${i}`] ?? []])),
  };
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
              />
              <RequestList
                title="Your connections"
                empty="You have not shared anything here yet."
                requests={shown.filter((r) => !isInvitation(r.state))}
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
}: {
  readonly title: string;
  readonly empty: string;
  readonly requests: readonly PersonRequest[];
}) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {requests.length === 0 ? (
        <p className="note">{empty}</p>
      ) : (
        <ul className="requests">
          {requests.map((r) => (
            <RequestEntry key={r.requestId} request={r} />
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

function RequestEntry({ request: r }: { readonly request: PersonRequest }) {
  return (
    <li>
      <h3>{r.organizationName}</h3>
      <p>
        <Link to={`/requests/${r.requestId}`}>{r.manifestName}</Link>
        {r.purpose ? `: ${r.purpose}` : ''}
      </p>
      <p>
        <strong>{plainState(r.state)}</strong>
      </p>
      {isInvitation(r.state) ? (
        <p className="meta">
          Received {day(r.createdAt)}
          {r.invitationExpiresAt ? `; answer by ${day(r.invitationExpiresAt)}` : ''}
        </p>
      ) : (
        wasAccepted(r) && (
          <p className="meta">
            {isLive(r.state) ? 'You share' : 'You shared'}: {sharedWords(r)}
          </p>
        )
      )}
    </li>
  );
}

/**
 * Who holds what: per organization the person said yes to, what it is given now, the copies it
 * keeps, its connections by state, and how often it read an update before deciding on it.
 */
function WhoHoldsWhat({ overview, onChoose }: { readonly overview: Overview; readonly onChoose: (organizationId: string) => void }) {
  const connected = overview.requests.filter(wasAccepted);
  const organizations = organizationsOf(connected);
  if (organizations.length === 0) return null;
  return (
    <section aria-label="Who holds what">
      <h2>Who holds what</h2>
      {organizations.map((o) => {
        const theirs = connected.filter((r) => r.organizationId === o.organizationId);
        const reads = overview.receipts.filter((x) => x.organizationId === o.organizationId);
        const shared = theirs
          .filter((r) => isLive(r.state))
          .map(sharedWords)
          .filter((w) => w !== 'nothing');
        return (
          <section key={o.organizationId} className="card" aria-label={o.name}>
            <h3>{o.name}</h3>
            <p>You share with them now: {shared.length > 0 ? shared.join('; ') : 'nothing'}.</p>
            <Copies organization={o.name} connections={theirs} overview={overview} />
            <p>Connections: {countsWords(theirs)}.</p>
            <p>{readsWords(reads.length, 'They')}</p>
            <button type="button" className="secondary" onClick={() => onChoose(o.organizationId)}>
              Show only {o.name}
            </button>
          </section>
        );
      })}
    </section>
  );
}

/** The copies one organization keeps across its connections with the person, from each connection's history. */
function Copies(props: { readonly organization: string; readonly connections: readonly PersonRequest[]; readonly overview: Overview }) {
  const recordName = recordNameIn(props.overview.records);
  const copies = props.connections.flatMap((r) => {
    const names = {
      organization: props.organization,
      slotLabel: (slotId: string) => r.items.find((i) => i.slotId === slotId)?.label,
      recordName,
    };
    return holdingsOf(props.overview.histories.get(r.requestId) ?? []).map((h) => ({
      key: h.orgResourceId,
      lines: holdingSentences(h, names),
    }));
  });
  if (copies.length === 0) return <p>They keep no copy of anything you shared.</p>;
  return (
    <>
      <p>They keep:</p>
      <ul>
        {copies.map((c) => (
          <li key={c.key}>{c.lines.join(' ')}</li>
        ))}
      </ul>
    </>
  );
}

/** A connection's state in a count: "2 active, 1 ended by you". */
const COUNTED: Readonly<Record<string, string>> = { active: 'active', suspended: 'paused', revoked: 'ended by you', expired: 'ended' };

function countsWords(requests: readonly PersonRequest[]): string {
  const counts = new Map<string, number>();
  for (const r of requests) counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
  return [...counts].map(([state, n]) => `${n} ${COUNTED[state] ?? plainState(state).toLowerCase()}`).join(', ');
}
