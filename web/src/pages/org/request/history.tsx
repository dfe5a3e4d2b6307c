import type { Schemas } from '@dss/sdk';
import { unavailableWords, when } from '../../../words';

type HistoryEntry = Schemas['HistoryEntry'];

/** Who acted, as the history names them: a member by their address, the person, or the service. */
export function actorWords(actor: string): string {
  if (actor === 'recipient') return 'by the person';
  if (actor === 'system') return 'by the service';
  return `by ${actor.replace(/^member:/, '')}`;
}

const CLOSED: Readonly<Record<string, string>> = {
  adopted: 'adopted',
  dismissed: 'dismissed',
  superseded: 'replaced by a newer version',
  kept: 'settled by a keep',
  withdrawn: 'withdrawn: the record is no longer shared',
};

/** An entry of the audit history in words; `slot` names the slot an entry is about. */
function entryWords(e: HistoryEntry, slot: string): string {
  const v = e.versions;
  switch (e.type) {
    case 'RequestSent':
      return `Invitation sent (manifest version ${v.manifestVersion})`;
    case 'RequestCancelled':
      return 'Invitation withdrawn';
    case 'RequestAccepted':
      return 'The person accepted';
    case 'RequestRejected':
      return 'The person declined';
    case 'SlotGranted':
      return `The person shared ${slot}`;
    case 'SlotWithdrawn':
      return `The person stopped sharing ${slot}`;
    case 'RequestRevoked':
      return 'The person revoked the connection';
    case 'RequestSuspended':
      return 'The person paused the connection';
    case 'RequestResumed':
      return 'The person resumed the connection';
    case 'CopyKept':
      return `Kept the person’s version ${v.sourceVersion} of ${slot} as copy version ${v.orgVersion}`;
    case 'CopyCorrected':
      return `Corrected ${slot}: copy version ${v.orgVersion}`;
    case 'CopyDeleted':
      return `Deleted the copy of ${slot}`;
    case 'AdoptionPended':
      return `A copy of ${slot} waits for the organization key`;
    case 'AdoptionDiscarded':
      return `A waiting copy of ${slot} was dropped: ${unavailableWords(String(v.reason))}`;
    case 'ProposalOpened':
      return `The person published version ${v.newVersion} of ${slot}: update proposed`;
    case 'ProposalClosed':
      return `Proposal ${CLOSED[String(v.reason)] ?? String(v.reason)}`;
    case 'ReceiptWritten':
      return `Read the person’s proposed version ${v.sourceVersion}`;
    default:
      return e.type.replace(/([a-z])([A-Z])/g, '$1 $2');
  }
}

/** What caused a consent receipt (docs/receipts.md), as the organization reads it: "The person accepted". */
const RECEIPT_CAUSES: Readonly<Record<string, string>> = {
  RequestAccepted: 'The person accepted',
  RequestRejected: 'The person declined',
  SlotGranted: 'The person shared an answer',
  SlotWithdrawn: 'The person stopped sharing an answer',
  RequestSuspended: 'The person paused the connection',
  RequestResumed: 'The person resumed the connection',
  RequestRevoked: 'The person revoked the connection',
  AppAuthorized: 'The person approved an app',
};

export const receiptWords = (event: string): string => RECEIPT_CAUSES[event] ?? event.replace(/([a-z])([A-Z])/g, '$1 $2');

/** The request's audit history, newest first (R-HIST-01): what happened, when and by whom. */
export function History({ history, items }: { readonly history: readonly HistoryEntry[]; readonly items: readonly Schemas['Item'][] }) {
  const slotOf = (e: HistoryEntry) => items.find((i) => i.slotId === e.versions.slotId)?.label ?? 'a slot';
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      <ol className="timeline" aria-label="History, newest first">
        {history.map((e) => (
          <li key={e.position}>
            <strong>{entryWords(e, slotOf(e))}</strong>{' '}
            <span className="meta">
              <time dateTime={e.occurredAt}>{when(e.occurredAt)}</time>, {actorWords(e.actor)}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
