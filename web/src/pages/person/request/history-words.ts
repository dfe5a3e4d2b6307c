import type { HistoryEntry } from '../../../history';
import { when } from '../../../words';
import type { PersonRequest } from './person-data';
import { recordNameIn, type RecordNames } from './vault-records';

/** What the sentences name: the organization, the request's slots and the person's own records, by id. */
export type HistoryNames = {
  readonly organization: string;
  readonly slotLabel: (slotId: string) => string | undefined;
  readonly recordName: (resourceId: string) => string | undefined;
};

/** A history entry with the names of its request, so entries of several requests can be told together. */
export type Told = {
  readonly entry: HistoryEntry;
  readonly names: HistoryNames;
  /** The request's name, where several requests are told together. */
  readonly request?: string;
};

/** A request's history, each entry with the request's slot labels and the person's own names for their records. */
export function toldOf(r: PersonRequest, records: RecordNames, history: readonly HistoryEntry[], request?: string): Told[] {
  const names: HistoryNames = {
    organization: r.organizationName,
    slotLabel: (slotId) => r.items.find((i) => i.slotId === slotId)?.label,
    recordName: recordNameIn(records),
  };
  return history.map((entry) => (request === undefined ? { entry, names } : { entry, names, request }));
}

const text = (e: HistoryEntry, key: string): string | undefined => {
  const value = e.versions[key];
  return value === undefined ? undefined : String(value);
};

/** A history position ("commit/prepare", R-HIST-01) as numbers: entries of several requests merge in log order. */
const positionOf = (e: HistoryEntry): readonly [bigint, bigint] => {
  const [commit = '0', prepare = '0'] = e.position.split('/');
  return [BigInt(commit), BigInt(prepare)];
};
const compare = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** Entries of one or more histories, oldest first as the log holds them. */
export function inLogOrder(told: readonly Told[]): Told[] {
  return [...told].sort((a, b) => {
    const [x, y] = [positionOf(a.entry), positionOf(b.entry)];
    return compare(x[0], y[0]) || compare(x[1], y[1]);
  });
}

/** Events the person's own doing caused, whatever actor the log names (a proposal opens when they publish): their sentence says "You". */
const YOURS: ReadonlySet<string> = new Set([
  'RequestAccepted',
  'RequestRejected',
  'SlotGranted',
  'SlotWithdrawn',
  'RequestSuspended',
  'RequestResumed',
  'RequestRevoked',
  'ProposalOpened',
]);

/**
 * Who did it, in words, or null for what the person did themselves: the service on its own, or a
 * member of the organization by the pseudonym the API gives (R-HIST-03), never an address.
 */
export function actorWords(e: HistoryEntry, organization: string): string | null {
  if (e.actor === 'recipient' || YOURS.has(e.type)) return null;
  if (e.actor === 'system') return 'automatically';
  const member = /^member:(.+)$/.exec(e.actor);
  return member ? `by a member of ${organization} (ref ${member[1]})` : `by ${e.actor}`;
}

/** When and by whom, for a sentence: "1/2/2025, 10:00 by a member of …"; no one for the person's own doing. */
const whenAndBy = (t: Told): string => {
  const by = actorWords(t.entry, t.names.organization);
  return by ? `${when(t.entry.occurredAt)} ${by}` : when(t.entry.occurredAt);
};

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

/** What caused a consent receipt (docs/receipts.md), as the person's own doing: "You accepted". */
const RECEIPT_CAUSES: Readonly<Record<string, string>> = {
  RequestAccepted: 'You accepted',
  RequestRejected: 'You said no',
  SlotGranted: 'You shared an answer',
  SlotWithdrawn: 'You withdrew an answer',
  RequestSuspended: 'You paused the connection',
  RequestResumed: 'You resumed the connection',
  RequestRevoked: 'You ended the connection',
  AppAuthorized: 'You let an app read what you share',
};

export const receiptWords = (event: string): string => RECEIPT_CAUSES[event] ?? typeWords(event);

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
      return `${org} corrected its copy of ${record()}, now their version ${theirs}. What it says now is ${org}’s, not yours.`;
    case 'CopyDeleted':
      return `${org} deleted its copy of ${record()}.`;
    case 'AdoptionPended':
      return `${org} asked to keep your version ${yours} of ${record()}; it is kept once ${org} unlocks its keys.`;
    case 'AdoptionDiscarded':
      return `${org} did not keep your version ${yours} of ${record()}: ${lapse}.`;
    case 'ProposalOpened':
      return `You published version ${text(e, 'newVersion') ?? '?'} of ${record()}; ${org} is asked before it takes the update.`;
    case 'ProposalClosed':
      return proposalClosedWords(text(e, 'reason'), org);
    case 'ReceiptWritten':
      // A member reads an update before deciding on it; an app reads through the partner plane (§13), as the service.
      return e.actor === 'system'
        ? `${org}’s app read your version ${yours} of ${record()}.`
        : `${org} read version ${yours} of ${record()} before deciding whether to take it.`;
    default:
      return `${typeWords(e.type)}.`;
  }
}

/** A copy chain of the organization's: its newest keep, a correction since, and its deletion. */
export type Holding = {
  readonly orgResourceId: string;
  /** Which version of the person's record the copy is: a later keep of a new version replaces the copy. */
  readonly kept: Told;
  /** The organization's own correction since that keep: what the copy says now is theirs. */
  readonly corrected: Told | null;
  readonly deleted: Told | null;
};

/** Every copy chain as it stands after the entries (oldest first in), the most recently changed first. */
export function holdingsOf(told: readonly Told[]): Holding[] {
  const chains = new Map<string, Holding>();
  for (const t of told) {
    const orgResourceId = text(t.entry, 'orgResourceId');
    if (orgResourceId === undefined) continue;
    const before = chains.get(orgResourceId);
    let after: Holding | undefined;
    if (t.entry.type === 'CopyKept') after = { orgResourceId, kept: t, corrected: null, deleted: null };
    else if (before && t.entry.type === 'CopyCorrected') after = { ...before, corrected: t };
    else if (before && t.entry.type === 'CopyDeleted') after = { ...before, deleted: t };
    if (!after) continue;
    // Re-inserted, so the map's order is the order of the last change.
    chains.delete(orgResourceId);
    chains.set(orgResourceId, after);
  }
  return [...chains.values()].reverse();
}

/** A copy the organization keeps, in sentences: which version of the person's, kept when and by whom, and a correction since. */
export function holdingSentences(h: Holding): string[] {
  const { entry, names } = h.kept;
  const org = names.organization;
  const lines = [`A copy of ${recordWords(entry, names)}, your version ${text(entry, 'sourceVersion') ?? '?'}, kept ${whenAndBy(h.kept)}.`];
  if (h.corrected) {
    const theirs = text(h.corrected.entry, 'orgVersion') ?? '?';
    lines.push(`${org} corrected it ${whenAndBy(h.corrected)}, now their version ${theirs}: what it says is ${org}’s, not yours.`);
  }
  return lines;
}

/** A chain whose copy the organization deleted: no longer among what it keeps. */
export const wasDeleted = (h: Holding): h is Holding & { readonly deleted: Told } => h.deleted !== null;

/** A deleted copy: which of the person's records it was a copy of, and when and by whom it went. */
export function deletionSentence(h: Holding & { readonly deleted: Told }): string {
  const { entry, names } = h.kept;
  const version = text(entry, 'sourceVersion') ?? '?';
  return `Your version ${version} of ${recordWords(entry, names)}: the copy was deleted ${whenAndBy(h.deleted)}.`;
}

/** Updates the organization was asked about and has not decided on yet, and keeps waiting for its key (oldest first). */
export function stillWaiting(told: readonly Told[]): Told[] {
  const of = (type: string, key: string) => new Set(told.filter((t) => t.entry.type === type).map((t) => text(t.entry, key)));
  const closed = of('ProposalClosed', 'proposalId');
  const done = new Set([...of('CopyKept', 'adoptionId'), ...of('AdoptionDiscarded', 'adoptionId')]);
  return told.filter(
    ({ entry: e }) =>
      (e.type === 'ProposalOpened' && !closed.has(text(e, 'proposalId'))) ||
      (e.type === 'AdoptionPended' && !done.has(text(e, 'adoptionId'))),
  );
}
