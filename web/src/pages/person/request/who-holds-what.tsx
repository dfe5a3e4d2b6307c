import { useId, type ReactNode } from 'react';
import { Link } from '../../../navigation';
import { when } from '../../../words';
import {
  actorWords,
  deletionSentence,
  historySentence,
  holdingSentences,
  holdingsOf,
  stillWaiting,
  wasDeleted,
  type Told,
} from './history-words';

/**
 * Who holds what on one request's page (contract §11, the UK Open Banking dashboard's access
 * history): what the organization did with what the person shared there.
 */
export function WhoHoldsWhat(props: { readonly organizationId: string; readonly organization: string; readonly told: readonly Told[] }) {
  const { organizationId, organization: org, told } = props;
  return (
    <section className="who-holds-what" aria-labelledby="who-holds-what">
      <h2 id="who-holds-what">Who holds what</h2>
      <Dealings organization={org} told={told} level={3} />
      <p className="note">
        <Link to={`/requests?organization=${encodeURIComponent(organizationId)}`}>Every connection with {org}</Link>
      </p>
    </section>
  );
}

type DealingsProps = {
  readonly organization: string;
  /** The history of the organization's connections with the person, oldest first (in log order), each entry with its request's names. */
  readonly told: readonly Told[];
  /** The parts' heading level: under the page's h2, or under an organization's h3. */
  readonly level: 3 | 4;
  /** Everything that happened, folded away where every organization is shown. */
  readonly folded?: boolean;
};

/**
 * What an organization holds of the person's and did with it, each newest first: the copies it keeps
 * (which version, when, by whom, a correction since), the updates and keeps waiting for it, the copies
 * it deleted, every candidate read (which version, when), and everything that happened.
 */
export function Dealings({ organization: org, told, level, folded = false }: DealingsProps) {
  const id = useId();
  const holdings = holdingsOf(told);
  const waiting = stillWaiting(told).reverse();
  const deleted = holdings.filter(wasDeleted);
  // A member reads an update before deciding on it; an app reads through the partner plane, as the service (§13).
  const receipts = told.filter((t) => t.entry.type === 'ReceiptWritten').reverse();
  const reads = receipts.filter((t) => t.entry.actor !== 'system');
  const appReads = receipts.filter((t) => t.entry.actor === 'system');
  const everything = [...told].reverse();
  const part = { id, level };
  return (
    <>
      <Part {...part} name="keeps" title={`What ${org} keeps`} empty={`${org} keeps no copy of anything you shared.`}>
        {holdings
          .filter((h) => !wasDeleted(h))
          .map((h) => (
            <li key={h.orgResourceId} className="card">
              {holdingSentences(h).map((line) => (
                <p key={line}>{line}</p>
              ))}
            </li>
          ))}
      </Part>
      {waiting.length > 0 && (
        <Part {...part} name="waiting" title={`Waiting for ${org}`}>
          {waiting.map((t) => (
            <Event key={t.entry.position} told={t} />
          ))}
        </Part>
      )}
      {deleted.length > 0 && (
        <Part {...part} name="deleted" title={`Copies ${org} deleted`}>
          {deleted.map((h) => (
            <li key={h.orgResourceId}>{deletionSentence(h)}</li>
          ))}
        </Part>
      )}
      <Part
        {...part}
        name="reads"
        title={`Updates ${org} read before deciding`}
        empty={`${org} has not read an update of yours before deciding whether to take it.`}
      >
        {reads.map((t) => (
          <Event key={t.entry.position} told={t} />
        ))}
      </Part>
      {appReads.length > 0 && (
        <Part {...part} name="app-reads" title={`What ${org}’s app read`}>
          {appReads.map((t) => (
            <Event key={t.entry.position} told={t} />
          ))}
        </Part>
      )}
      {folded ? (
        <details>
          <summary id={`${id}-all`}>Everything that happened with {org}, newest first</summary>
          <Events labelledBy={`${id}-all`} told={everything} />
        </details>
      ) : (
        <>
          <Heading level={level} id={`${id}-all`}>
            Everything that happened, newest first
          </Heading>
          <Events labelledBy={`${id}-all`} told={everything} />
        </>
      )}
    </>
  );
}

function Heading({ level, id, children }: { readonly level: 3 | 4; readonly id: string; readonly children: ReactNode }) {
  return level === 3 ? <h3 id={id}>{children}</h3> : <h4 id={id}>{children}</h4>;
}

/** A part under its heading: a list named by it, or `empty` in words when the list has nothing (none: the part shows anyway). */
function Part(props: {
  readonly id: string;
  readonly level: 3 | 4;
  readonly name: string;
  readonly title: string;
  readonly empty?: string;
  readonly children: readonly ReactNode[];
}) {
  const heading = `${props.id}-${props.name}`;
  return (
    <>
      <Heading level={props.level} id={heading}>
        {props.title}
      </Heading>
      {props.children.length === 0 && props.empty ? (
        <p className="note">{props.empty}</p>
      ) : (
        <ul className="holdings" aria-labelledby={heading}>
          {props.children}
        </ul>
      )}
    </>
  );
}

function Events({ labelledBy, told }: { readonly labelledBy: string; readonly told: readonly Told[] }) {
  return (
    <ol className="history" aria-labelledby={labelledBy}>
      {told.map((t) => (
        <Event key={t.entry.position} told={t} />
      ))}
    </ol>
  );
}

/** One entry as a sentence, then when, by whom (nothing for the person's own doing) and, among several, in which request. */
function Event({ told: { entry, names, request } }: { readonly told: Told }) {
  const by = actorWords(entry, names.organization);
  return (
    <li>
      <p>{historySentence(entry, names)}</p>
      <p className="meta">
        <time dateTime={entry.occurredAt}>{when(entry.occurredAt)}</time>
        {by && `, ${by}`}
        {request && ` · ${request}`}
      </p>
    </li>
  );
}
