import type { HistoryEntry } from '../../../history';
import { day } from '../../../words';

/** What the sentences name: the organization, the request's slots and the person's own records, by id. */
export type HistoryNames = {
  readonly organization: string;
  readonly slotLabel: (slotId: string) => string | undefined;
  readonly recordName: (resourceId: string) => string | undefined;
};

const text = (e: HistoryEntry, key: string): string | undefined => {
  const value = e.versions[key];
  return value === undefined ? undefined : String(value);
};

/** Who did it, in words: the person, the service on its own, or the member as the API names them. */
export function actorWords(actor: string): string {
  if (actor === 'recipient') return 'by you';
  if (actor === 'system') return 'automatically';
  return `by ${actor}`;
}

/** The record an event is about: the person's own name for it, and the slot it was shared in. */
export function recordWords(e: HistoryEntry, names: HistoryNames): string {
  const resourceId = text(e, 'resourceId');
  const slotId = text(e, 'slotId');
  const record = resourceId === undefined ? undefined : names.recordName(resourceId);
  const slot = slotId === undefined ? undefined : names.slotLabel(slotId);
  if (record && slot) return `“${record}” (shared as ${slot})`;
  if (record) return `“${record}”`;
  if (slot) return `what you shared as ${slot}`;
  return 'one of your records';
}

/** Why a copy waiting for the organization's key was not kept (R-CONS-02's lapses). */
const LAPSES: Readonly<Record<string, string>> = {
  connection_inactive: 'the connection was no longer active',
  not_granted: 'you no longer shared the record',
  source_unavailable: 'the record no longer exists',
  participant_ineligible: 'you could no longer answer for it',
};

/** What happened to an update the organization was asked about (ProposalClosed's reason). */
function proposalClosedWords(reason: string | undefined, org: string): string {
  switch (reason) {
    case 'adopted':
    case 'kept':
      return `${org} took your update.`;
    case 'dismissed':
      return `${org} chose not to take your update; its copy stays as it was.`;
    case 'superseded':
      return `A newer version of yours replaced the update waiting for ${org}.`;
    case 'withdrawn':
      return `The update waiting for ${org} was dropped: the record is no longer shared with it.`;
    default:
      return `The update waiting for ${org} was closed.`;
  }
}

/** "SomethingHappened" → "Something happened": an event type the page has no sentence for yet. */
const typeWords = (type: string): string => {
  const words = type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** One history entry as a sentence the person reads (contract §11: plain words, every copy, correction and read). */
export function historySentence(e: HistoryEntry, names: HistoryNames): string {
  const org = names.organization;
  const record = () => recordWords(e, names);
  const slot = () => names.slotLabel(text(e, 'slotId') ?? '') ?? 'a slot';
  // A version the entry lacks (an event recorded before it carried one) reads as "?".
  const yours = text(e, 'sourceVersion') ?? '?';
  const theirs = text(e, 'orgVersion') ?? '?';
  const lapse = LAPSES[text(e, 'reason') ?? ''] ?? 'consent no longer stood';
  switch (e.type) {
    case 'RequestSent':
      return `${org} sent you this request.`;
    case 'RequestCancelled':
      return `${org} withdrew its request.`;
    case 'RequestAccepted':
      return 'You accepted the request.';
    case 'RequestRejected':
      return 'You said no to the request.';
    case 'SlotGranted':
      return `You shared your answer for ${slot()}.`;
    case 'SlotWithdrawn':
      return `You withdrew your answer for ${slot()}. Copies ${org} already kept stay with it.`;
    case 'RequestSuspended':
      return `You paused the connection: ${org} gets nothing new until you resume it.`;
    case 'RequestResumed':
      return 'You resumed the connection.';
    case 'RequestRevoked':
      return `You ended the connection: ${org} gets nothing new.`;
    case 'CopyKept':
      return `${org} kept a copy of ${record()}: your version ${yours}, their copy’s version ${theirs}.`;
    case 'CopyCorrected':
      return `${org} corrected its copy of ${record()} (their copy’s version ${theirs}). What it says now is ${org}’s, not yours.`;
    case 'CopyDeleted':
      return `${org} deleted its copy of ${record()}.`;
    case 'AdoptionPended':
      return `${org} asked to keep a copy of ${record()} (your version ${yours}); it is kept once ${org} unlocks its keys.`;
    case 'AdoptionDiscarded':
      return `The copy of ${record()} (your version ${yours}) was not kept: ${lapse}.`;
    case 'ProposalOpened':
      return `You published version ${text(e, 'newVersion') ?? '?'} of ${record()}; ${org} is asked before it takes the update.`;
    case 'ProposalClosed':
      return proposalClosedWords(text(e, 'reason'), org);
    case 'ReceiptWritten':
      return `${org} read version ${yours} of ${record()} before deciding whether to take it.`;
    default:
      return `${typeWords(e.type)}.`;
  }
}

/** A copy the organization holds (one copy chain): what it kept last, and whether it corrected or deleted it. */
export type Holding = {
  readonly orgResourceId: string;
  readonly entry: HistoryEntry;
  readonly yourVersion: string | undefined;
  readonly theirVersion: string | undefined;
  readonly corrected: boolean;
  readonly deleted: boolean;
};

/** Every copy chain of the request as it stands after the history (oldest first in, one per chain out). */
export function holdingsOf(history: readonly HistoryEntry[]): Holding[] {
  const chains = new Map<string, Holding>();
  for (const e of history) {
    const orgResourceId = text(e, 'orgResourceId');
    if (orgResourceId === undefined) continue;
    const before = chains.get(orgResourceId);
    if (e.type === 'CopyKept')
      chains.set(orgResourceId, {
        orgResourceId,
        entry: e,
        yourVersion: text(e, 'sourceVersion'),
        theirVersion: text(e, 'orgVersion'),
        corrected: false,
        deleted: false,
      });
    else if (before && e.type === 'CopyCorrected')
      chains.set(orgResourceId, { ...before, theirVersion: text(e, 'orgVersion'), corrected: true });
    else if (before && e.type === 'CopyDeleted') chains.set(orgResourceId, { ...before, deleted: true });
  }
  return [...chains.values()];
}

/** A copy the organization holds, in sentences: what it kept and when, and whether it corrected or deleted it since. */
export function holdingSentences(h: Holding, names: HistoryNames): string[] {
  const org = names.organization;
  const kept = `kept ${day(h.entry.occurredAt)} ${actorWords(h.entry.actor)}`;
  const corrected = `${org} corrected its copy since (their version ${h.theirVersion ?? '?'}): what it says now is ${org}’s, not yours.`;
  return [
    `A copy of ${recordWords(h.entry, names)}, your version ${h.yourVersion ?? '?'}, ${kept}.`,
    ...(h.corrected ? [corrected] : []),
    ...(h.deleted ? [`${org} has deleted this copy.`] : []),
  ];
}

/** Updates the organization was asked about and has not decided on yet, and keeps waiting for its key. */
export function stillWaiting(history: readonly HistoryEntry[]): HistoryEntry[] {
  const closed = new Set(history.filter((e) => e.type === 'ProposalClosed').map((e) => text(e, 'proposalId')));
  const done = new Set(history.filter((e) => e.type === 'CopyKept' || e.type === 'AdoptionDiscarded').map((e) => text(e, 'adoptionId')));
  return history.filter(
    (e) =>
      (e.type === 'ProposalOpened' && !closed.has(text(e, 'proposalId'))) ||
      (e.type === 'AdoptionPended' && !done.has(text(e, 'adoptionId'))),
  );
}

/** How often an organization read an update of the person's before deciding on it (their receipts, R-PROP-03). */
export function readsWords(reads: number, who: string): string {
  if (reads === 0) return `${who} has not read an update of yours before deciding whether to take it.`;
  const one = reads === 1;
  return `${who} read ${one ? 'an update' : `${reads} updates`} of yours before deciding whether to take ${one ? 'it' : 'them'}.`;
}
