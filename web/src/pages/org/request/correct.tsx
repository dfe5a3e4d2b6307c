import type { Corrected, Schemas } from '@dss/sdk';
import { useState } from 'react';
import { Refused } from '../../../api';
import { SchemaForm } from '../../../forms/schema-form';
import type { JsonSchema } from '../../../forms/schemas';
import type { OrgSession } from '../org-session';
import { chainsOf, newestOf, recordName, requestPath, type Chain, type Reload, type RequestView } from './model';
import { SchemaData } from '../../../forms/schema-data';

/** What a correction says it corrects (spec §4.3, rules for correct 3): the newest keep of the record and the head of its chain. */
type Base = { readonly sourceResourceId: string; readonly expectedSourceVersion: number; readonly expectedOrgVersion: number };

const baseOf = (chain: Chain): Base => {
  const newest = newestOf(chain);
  return {
    sourceResourceId: chain.sourceResourceId,
    expectedSourceVersion: newest.adoption.sourceVersion,
    expectedOrgVersion: newest.currentOrgVersion,
  };
};

/** After a 409: the chain as it is now, and what moved since the form was opened, in words. */
type Conflict = { readonly chain: Chain | undefined; readonly notes: readonly string[] };

function conflictOf(view: RequestView, item: Schemas['Item'], was: Base, orgResourceId: string): Conflict {
  const chain = chainsOf(view.copies ?? []).find((c) => c.orgResourceId === orgResourceId);
  const notes: string[] = [];
  if (chain && newestOf(chain).currentOrgVersion !== was.expectedOrgVersion) {
    const newest = newestOf(chain);
    notes.push(
      `Someone else changed this copy while you were correcting it: it is now version ${newest.currentOrgVersion}, ${
        newest.currentOrigin === 'correction' ? 'a correction' : `a copy of the person’s version ${newest.adoption.sourceVersion}`
      }.`,
    );
  }
  const record = item.records.find((r) => r.resourceId === was.sourceResourceId);
  const held = chain ? newestOf(chain).adoption.sourceVersion : was.expectedSourceVersion;
  if (record?.sourceVersion !== undefined && record.sourceVersion > held)
    notes.push(
      `The person has published version ${record.sourceVersion} of their record since this copy was kept: ` +
        'keep it (or adopt its proposal) before correcting.',
    );
  if (notes.length === 0) notes.push('The copy changed while you were correcting it.');
  return { chain, notes };
}

type Props = {
  readonly org: OrgSession;
  readonly view: RequestView;
  readonly item: Schemas['Item'];
  readonly chain: Chain;
  readonly schema: JsonSchema | undefined;
  readonly reload: Reload;
};

/**
 * Correct: the copy as the organization uses it today in a form, sent as the chain's next version
 * with the versions the member saw (optimistic). A 409 re-reads the request, shows the copy as it
 * is now and what changed, and keeps the member's edits in the form to try again on the new versions.
 */
export function CorrectCopy({ org, view, item, chain, schema, reload }: Props) {
  const [base, setBase] = useState<Base | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const name = recordName(item.label, chain.participant);
  const formId = `correct-${chain.orgResourceId}`;

  const open = () => {
    setBase(baseOf(chain));
    setConflict(null);
    setDone(null);
  };
  const close = () => {
    setBase(null);
    setConflict(null);
  };
  const submit = async (data: unknown) => {
    if (!base) return;
    try {
      const answer = await org.api.post<Corrected>(requestPath(view.detail.request.requestId, `/slots/${item.slotId}/correct`), {
        ...base,
        data,
      });
      await reload();
      close();
      setDone(`Corrected: the copy is now at version ${answer.orgVersion}.`);
    } catch (e) {
      if (!(e instanceof Refused && e.status === 409)) throw e;
      const now = await reload();
      if (!now) return;
      const found = conflictOf(now, now.detail.items.find((i) => i.slotId === item.slotId) ?? item, base, chain.orgResourceId);
      setConflict(found);
      if (found.chain) setBase(baseOf(found.chain));
    }
  };

  return (
    <>
      <div className="actions">
        <button type="button" className="secondary" aria-expanded={base !== null} aria-controls={formId} onClick={base ? close : open}>
          {base ? 'Close the correction' : `Correct ${name}`}
        </button>
        <span aria-live="polite" className="ok">
          {done}
        </span>
      </div>
      {base && (
        <div id={formId}>
          {conflict && (
            <div role="alert" className="card">
              {conflict.notes.map((n) => (
                <p key={n} className="error">
                  {n}
                </p>
              ))}
              {conflict.chain && (
                <>
                  <p>The copy now:</p>
                  <SchemaData schema={schema} data={newestOf(conflict.chain).currentData} />
                </>
              )}
              <p>Your changes are still in the form: check them and Correct again.</p>
            </div>
          )}
          {schema ? (
            <SchemaForm schema={schema} initial={newestOf(chain).currentData} submitLabel="Correct" onSubmit={submit} idPrefix={formId} />
          ) : (
            <p aria-live="polite">Loading the form…</p>
          )}
        </div>
      )}
    </>
  );
}
