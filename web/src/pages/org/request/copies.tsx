import type { Copy, Schemas } from '@dss/sdk';
import { saveBlob } from '../../../api';
import { when } from '../../../words';
import { UnsealButton, type OrgSession } from '../org-session';
import { Failure, useAction } from '../../../actions';
import { CorrectCopy } from './correct';
import { actorWords } from './history';
import { chainsOf, newestOf, recordName, requestPath, type Chain, type Reload, type RequestView } from './model';
import { SchemaData, useSchema } from '../../../forms/schema-data';

type Props = { readonly org: OrgSession; readonly view: RequestView; readonly reload: Reload };

/** The kept copies, a chain per record: what the organization uses today, shown through its schema, and every version. */
export function Copies({ org, view, reload }: Props) {
  const items = view.detail.items;
  const chains = chainsOf(view.copies ?? []).sort(
    (a, b) => items.findIndex((i) => i.slotId === a.slotId) - items.findIndex((i) => i.slotId === b.slotId),
  );
  return (
    <section aria-labelledby="copies-heading">
      <h2 id="copies-heading">Kept copies</h2>
      {chains.length === 0 && <p>No copy kept yet.</p>}
      {chains.map((chain) => {
        const item = items.find((i) => i.slotId === chain.slotId);
        return item ? <ChainCard key={chain.orgResourceId} org={org} view={view} item={item} chain={chain} reload={reload} /> : null;
      })}
    </section>
  );
}

/** The copies while the organization's key is sealed (R-WEB-10): nothing opens until a member signs in again. */
export function SealedCopies({ org, reload }: { readonly org: OrgSession; readonly reload: Reload }) {
  return (
    <section aria-labelledby="copies-heading">
      <h2 id="copies-heading">Kept copies</h2>
      <p className="note">The organization’s key is sealed: copies cannot be opened.</p>
      <UnsealButton org={org} after={reload} />
    </section>
  );
}

type ChainProps = {
  readonly org: OrgSession;
  readonly view: RequestView;
  readonly item: Schemas['Item'];
  readonly chain: Chain;
  readonly reload: Reload;
};

function ChainCard({ org, view, item, chain, reload }: ChainProps) {
  const newest = newestOf(chain);
  const schema = useSchema(newest.schemaRef ?? item.target);
  const file = newest.adoption.resourceType === 'file';
  const name = recordName(item.label, chain.participant);
  return (
    <article className="card" aria-labelledby={`chain-${chain.orgResourceId}`}>
      <h3 id={`chain-${chain.orgResourceId}`}>
        {name}: {newest.name}
      </h3>
      <p className="meta">
        {file
          ? `The file as the person’s version ${newest.adoption.sourceVersion} holds it.`
          : `Version ${newest.currentOrgVersion}, ${
              newest.currentOrigin === 'correction' ? 'your correction' : `a copy of the person’s version ${newest.adoption.sourceVersion}`
            }: what you use today.`}
      </p>
      {file ? (
        <>
          <SchemaData data={newest.data} />
          <Download org={org} requestId={view.detail.request.requestId} copy={newest} label={`Download ${name}`} />
        </>
      ) : (
        <SchemaData schema={schema} data={newest.currentData} />
      )}
      <Versions org={org} requestId={view.detail.request.requestId} name={name} chain={chain} history={view.history} schema={schema} />
      {!file && org.can('request_manage') && item.verbs.includes('keep') && (
        <CorrectCopy org={org} view={view} item={item} chain={chain} schema={schema} reload={reload} />
      )}
    </article>
  );
}

type VersionsProps = {
  readonly org: OrgSession;
  readonly requestId: string;
  readonly name: string;
  readonly chain: Chain;
  readonly history: RequestView['history'];
  readonly schema: ReturnType<typeof useSchema>;
};

/** The chain's versions, newest first, from the history: each keep of a person's version and each correction (spec §2.6). */
function Versions({ org, requestId, name, chain, history, schema }: VersionsProps) {
  const versions = history.filter(
    (e) => (e.type === 'CopyKept' || e.type === 'CopyCorrected') && e.versions.orgResourceId === chain.orgResourceId,
  );
  const keptAs = (e: Schemas['HistoryEntry']): Copy | undefined =>
    chain.copies.find((c) => c.adoption.adoptionId === e.versions.adoptionId);
  return (
    <>
      <h4>Versions</h4>
      <ol className="timeline">
        {versions.map((e) => {
          const copy = e.type === 'CopyKept' ? keptAs(e) : undefined;
          return (
            <li key={e.position}>
              <strong>Version {e.versions.orgVersion}</strong>:{' '}
              {e.type === 'CopyKept' ? `a copy of the person’s version ${e.versions.sourceVersion}` : 'a correction'}{' '}
              <span className="meta">
                {when(e.occurredAt)}, {actorWords(e.actor)}
              </span>
              {copy && copy.adoption.resourceType === 'file' && (
                <Download org={org} requestId={requestId} copy={copy} label={`Download version ${copy.orgVersion} of ${name}`} />
              )}
              {copy && copy.adoption.resourceType !== 'file' && (
                <details>
                  <summary>As kept</summary>
                  <SchemaData schema={schema} data={copy.data} />
                </details>
              )}
            </li>
          );
        })}
      </ol>
    </>
  );
}

/** The bytes of the version a file copy kept (not the head), saved as a file. */
function Download({
  org,
  requestId,
  copy,
  label,
}: {
  readonly org: OrgSession;
  readonly requestId: string;
  readonly copy: Copy;
  readonly label: string;
}) {
  const { busy, error, run } = useAction();
  const download = () =>
    run(async () => saveBlob(await org.api.blob(requestPath(requestId, `/copies/${copy.adoption.adoptionId}/download`))));
  return (
    <div className="actions">
      <button type="button" className="secondary" disabled={busy} onClick={() => void download()}>
        {label}
      </button>
      <Failure error={error} />
    </div>
  );
}
