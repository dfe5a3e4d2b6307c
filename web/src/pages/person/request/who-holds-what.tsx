import type { HistoryEntry } from '../../../history';
import { Link } from '../../../navigation';
import { when } from '../../../words';
import type { Receipt } from './person-data';
import { actorWords, historySentence, holdingSentences, holdingsOf, readsWords, stillWaiting, type HistoryNames } from './history-words';

type Props = {
  readonly organizationId: string;
  readonly names: HistoryNames;
  /** `user.requestHistory`, oldest first as the API answers it. */
  readonly history: readonly HistoryEntry[];
  readonly receipts: readonly Receipt[];
};

/**
 * Who holds what (contract §11, the UK Open Banking dashboard's access history): the copies the
 * organization keeps now, what still waits for it, and everything it and the person did, newest first.
 */
export function WhoHoldsWhat({ organizationId, names, history, receipts }: Props) {
  const org = names.organization;
  const holdings = holdingsOf(history);
  const waiting = stillWaiting(history);
  const reads = receipts.filter((r) => r.organizationId === organizationId);
  return (
    <section className="who-holds-what" aria-labelledby="who-holds-what">
      <h2 id="who-holds-what">Who holds what</h2>
      <h3>What {org} keeps</h3>
      {holdings.length === 0 ? (
        <p className="note">{org} has kept no copy of anything you shared here.</p>
      ) : (
        <ul className="holdings">
          {holdings.map((h) => (
            <li key={h.orgResourceId} className="card">
              {holdingSentences(h, names).map((line) => (
                <p key={line}>{line}</p>
              ))}
            </li>
          ))}
        </ul>
      )}
      {waiting.length > 0 && (
        <>
          <h3>Waiting for {org}</h3>
          <ul>
            {waiting.map((e) => (
              <li key={e.position}>{historySentence(e, names)}</li>
            ))}
          </ul>
        </>
      )}
      <p className="note">
        {readsWords(reads.length, `Across all your connections, ${org}`)}{' '}
        <Link to={`/requests?organization=${encodeURIComponent(organizationId)}`}>Every connection with {org}</Link>
      </p>
      <h3>Everything that happened, newest first</h3>
      <ol className="history">
        {[...history].reverse().map((e) => (
          <li key={e.position}>
            <p>{historySentence(e, names)}</p>
            <p className="meta">
              <time dateTime={e.occurredAt}>{when(e.occurredAt)}</time>, {actorWords(e.actor)}
            </p>
          </li>
        ))}
      </ol>
    </section>
  );
}
