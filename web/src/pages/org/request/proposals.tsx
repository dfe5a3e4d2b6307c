import type { Adoption, Candidate, Schemas } from '@dss/sdk';
import { useState } from 'react';
import { when } from '../../../words';
import type { OrgSession } from '../org-session';
import { Failure, useAction } from '../../../actions';
import { chainsOf, newestOf, recordName, requestPath, type Chain, type Reload, type RequestView } from './model';
import type { Answer } from '../../../api';
import { SchemaData, useSchema } from '../../../forms/schema-data';

type Props = { readonly org: OrgSession; readonly view: RequestView; readonly reload: Reload };

/** The open proposals (spec §2.7, §3.5): a newer version the person published on a slot kept by hand, to adopt or dismiss. */
export function Proposals({ org, view, reload }: Props) {
  const [done, setDone] = useState<string | null>(null);
  const { proposals, items } = view.detail;
  const chains = chainsOf(view.copies ?? []);
  return (
    <section aria-labelledby="proposals-heading">
      <h2 id="proposals-heading">Update proposals</h2>
      <p aria-live="polite" className="ok">
        {done}
      </p>
      {proposals.length === 0 && <p>No open proposal.</p>}
      {proposals.map((p) => {
        const item = items.find((i) => i.slotId === p.slotId);
        const chain = chains.find((c) => c.slotId === p.slotId && c.sourceResourceId === p.resourceId);
        return item ? (
          <ProposalCard key={p.proposalId} org={org} view={view} proposal={p} item={item} chain={chain} reload={reload} onDone={setDone} />
        ) : null;
      })}
    </section>
  );
}

type CardProps = {
  readonly org: OrgSession;
  readonly view: RequestView;
  readonly proposal: Schemas['ProposalSummary'];
  readonly item: Schemas['Item'];
  readonly chain: Chain | undefined;
  readonly reload: Reload;
  readonly onDone: (words: string) => void;
};

function ProposalCard({ org, view, proposal, item, chain, reload, onDone }: CardProps) {
  const { busy, error, run } = useAction();
  const [candidate, setCandidate] = useState<Candidate | null>(null);
  const path = (rest: string) => requestPath(view.detail.request.requestId, `/proposals/${proposal.proposalId}${rest}`);
  const name = recordName(item.label, proposal.participant);
  const what = `version ${proposal.newVersion} of ${name}`;
  const compare = () => run(async () => setCandidate(await org.api.get<Candidate>(path('/candidate'))));
  const adopt = () =>
    run(async () => {
      const adoption = await org.api.post<Adoption>(path('/adopt'));
      await reload();
      onDone(`Adopted ${what}: the copy is now at version ${adoption.orgVersion ?? '(waiting for the organization key)'}.`);
    });
  const dismiss = () =>
    run(async () => {
      const answer = await org.api.post<Answer<'post', '/org/v1/requests/{requestId}/proposals/{proposalId}/dismiss'>>(path('/dismiss'));
      await reload();
      onDone(answer.dismissed ? `Dismissed ${what}: the copy stays as it was.` : `The proposal of ${what} was already decided.`);
    });
  const manages = org.can('request_manage');
  return (
    <article className="card" aria-labelledby={`proposal-${proposal.proposalId}`}>
      <h3 id={`proposal-${proposal.proposalId}`}>
        {name}: the person published version {proposal.newVersion}
      </h3>
      <p className="meta">Proposed {when(proposal.proposedAt)}.</p>
      {manages && candidate === null && (
        <>
          <p className="note">Reading the proposed version is recorded on the person’s side.</p>
          <div className="actions">
            <button type="button" className="secondary" disabled={busy} onClick={() => void compare()}>
              Compare {what} with your copy
            </button>
          </div>
        </>
      )}
      {candidate && <SideBySide item={item} chain={chain} candidate={candidate} />}
      {manages && (
        <div className="actions">
          <button type="button" disabled={busy} onClick={() => void adopt()}>
            Adopt {what}
          </button>
          <button type="button" className="secondary" disabled={busy} onClick={() => void dismiss()}>
            Dismiss {what}
          </button>
        </div>
      )}
      <Failure error={error} />
    </article>
  );
}

/** The candidate beside the copy it would follow, each through the schema; what the candidate changes is marked. */
function SideBySide({
  item,
  chain,
  candidate,
}: {
  readonly item: Schemas['Item'];
  readonly chain: Chain | undefined;
  readonly candidate: Candidate;
}) {
  const schema = useSchema(candidate.schemaRef ?? item.target);
  const current = chain ? newestOf(chain) : undefined;
  const currentData = current?.currentData ?? current?.data;
  return (
    <div className="compare">
      <section aria-label="Your copy now">
        <h4>Your copy now{current ? ` (version ${current.currentOrgVersion})` : ''}</h4>
        {current ? <SchemaData schema={schema} data={currentData} /> : <p>No copy kept yet.</p>}
      </section>
      <section aria-label="Proposed version">
        <h4>Proposed: the person’s version {candidate.version}</h4>
        <SchemaData schema={schema} data={candidate.data} compareTo={current ? currentData : undefined} />
      </section>
    </div>
  );
}
