import type { Adoption, KeepAnswer, Schemas } from '@dss/sdk';
import { useState } from 'react';
import { schemaWords, unavailableWords, when } from '../../../words';
import type { OrgSession } from '../org-session';
import { Failure, useAction } from '../../../actions';
import { partyWords, recordName, requestPath, type Reload, type RequestView } from './model';
import type { Answer } from '../../../api';

type Props = { readonly org: OrgSession; readonly view: RequestView; readonly reload: Reload };

/** What the request asks, what the person shares (each record available or not, and why), what is kept; Keep and drain. */
export function Items({ org, view, reload }: Props) {
  const [outcome, setOutcome] = useState<{ readonly label: string; readonly answer: KeepAnswer } | null>(null);
  const { detail } = view;
  const onKept = async (label: string, answer: KeepAnswer) => {
    setOutcome({ label, answer });
    await reload();
  };
  return (
    <section aria-labelledby="items-heading">
      <h2 id="items-heading">What was asked</h2>
      <div aria-live="polite">{outcome && <KeepOutcome label={outcome.label} answer={outcome.answer} />}</div>
      {detail.items.map((item) => (
        <ItemCard
          key={item.slotId}
          org={org}
          requestId={detail.request.requestId}
          item={item}
          adoptions={detail.adoptions.filter((a) => a.slotId === item.slotId)}
          onKept={onKept}
        />
      ))}
      {org.can('request_manage') && detail.adoptions.some((a) => a.state === 'pending') && (
        <Drain org={org} requestId={detail.request.requestId} reload={reload} />
      )}
    </section>
  );
}

type ItemProps = {
  readonly org: OrgSession;
  readonly requestId: string;
  readonly item: Schemas['Item'];
  readonly adoptions: readonly Adoption[];
  readonly onKept: (label: string, answer: KeepAnswer) => Promise<void>;
};

function ItemCard({ org, requestId, item, adoptions, onKept }: ItemProps) {
  const { busy, error, run } = useAction();
  const parties = [
    ...new Map(item.records.flatMap((r) => (r.participant ? [[r.participant.alias, r.participant] as const] : []))).values(),
  ];
  const keeps = org.can('request_manage') && item.verbs.includes('keep') && item.records.length > 0;
  const keep = (alias: string | null) =>
    run(async () => {
      const body = alias === null ? undefined : { participant: alias };
      const answer = await org.api.post<KeepAnswer>(requestPath(requestId, `/slots/${item.slotId}/adopt`), body);
      await onKept(alias === null ? item.label : `${item.label} for ${alias}`, answer);
    });
  return (
    <article className="card" aria-labelledby={`slot-${item.slotId}`}>
      <h3 id={`slot-${item.slotId}`}>
        {item.label} <span className="tag">{item.status === 'granted' ? 'Shared' : 'Not shared yet'}</span>
      </h3>
      <p className="meta">
        {item.group} · {schemaWords(item.target)}
        {item.kind === 'file' ? ' (a file)' : ''} · {item.adoption === 'auto' ? 'kept automatically' : 'kept when you choose'}
      </p>
      {item.records.length === 0 ? (
        <p>Nothing shared here.</p>
      ) : (
        <ul>
          {item.records.map((r) => (
            <li key={r.resourceId}>
              <RecordLine record={r} adoptions={adoptions} />
            </li>
          ))}
        </ul>
      )}
      {keeps && (
        <div className="actions">
          <button type="button" disabled={busy} onClick={() => void keep(null)}>
            Keep {item.label}
          </button>
          {parties.length > 1 &&
            parties.map((p) => (
              <button key={p.alias} type="button" className="secondary" disabled={busy} onClick={() => void keep(p.alias)}>
                Keep {recordName(item.label, p)}
              </button>
            ))}
        </div>
      )}
      <Failure error={error} />
    </article>
  );
}

/** A record, whether the organization may read it now (and if not, why), and how its copy stands (spec §4.3 rule 2). */
function RecordLine({ record, adoptions }: { readonly record: Schemas['RecordEntry']; readonly adoptions: readonly Adoption[] }) {
  const kept = adoptions.filter((a) => a.sourceResourceId === record.resourceId).sort((a, b) => a.sourceVersion - b.sourceVersion);
  const newest = kept.at(-1);
  return (
    <>
      <strong>{partyWords(record.participant)}</strong>:{' '}
      {record.status === 'available'
        ? `available, version ${record.sourceVersion}.`
        : `not available: ${unavailableWords(record.reason ?? 'source_unavailable')}.`}{' '}
      <span className="meta">
        {newest === undefined
          ? 'No copy kept yet.'
          : newest.state === 'pending'
            ? `A copy of version ${newest.sourceVersion} waits for the organization key (asked ${when(newest.adoptedAt)}).`
            : record.sourceVersion !== undefined && newest.sourceVersion < record.sourceVersion
              ? `The copy holds version ${newest.sourceVersion}; the person has published a newer one.`
              : `Copy of version ${newest.sourceVersion} kept ${when(newest.adoptedAt)}.`}
      </span>
    </>
  );
}

/** A keep's answer: what was kept, and what was skipped and why (spec §4.3, rules for keep 4). */
function KeepOutcome({ label, answer }: { readonly label: string; readonly answer: KeepAnswer }) {
  return (
    <div className="card">
      <h3>Keep {label}</h3>
      <p>Kept:</p>
      <ul>
        {answer.adoptions.map((a) => (
          <li key={a.adoptionId}>
            {partyWords(a.participant)}: the person’s version {a.sourceVersion},{' '}
            {a.state === 'pending' ? 'waiting for the organization key' : `kept as copy version ${a.orgVersion}`}
          </li>
        ))}
      </ul>
      {answer.skipped.length === 0 ? (
        <p>Nothing was skipped.</p>
      ) : (
        <>
          <p>Skipped:</p>
          <ul>
            {answer.skipped.map((s) => (
              <li key={s.resourceId}>
                {partyWords(s.participant)}: {unavailableWords(s.reason)}. <span className="meta">({s.message})</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** Keeps the copies that waited for a warm organization key (spec §3.4). */
function Drain({ org, requestId, reload }: { readonly org: OrgSession; readonly requestId: string; readonly reload: Reload }) {
  const { busy, error, done, run } = useAction();
  const drain = () =>
    run(async () => {
      const r = await org.api.post<Answer<'post', '/org/v1/requests/{requestId}/adoptions/drain'>>(
        requestPath(requestId, '/adoptions/drain'),
      );
      await reload();
      return `${r.materialized} kept, ${r.stillPending} still waiting.`;
    });
  return (
    <div className="actions">
      <button type="button" disabled={busy} onClick={() => void drain()}>
        Keep the waiting copies
      </button>
      <span aria-live="polite">{done}</span>
      <Failure error={error} />
    </div>
  );
}
