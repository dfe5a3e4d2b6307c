/**
 * The events feed's catalogue (contract §12, docs/events.md): the thin events an organization reads
 * from GET /org/v1/events. Each names ids and versions only, never personal data: a consumer reads
 * what it is allowed to through the routes that serve it.
 */

/** Ids an event may name, each with one meaning in every type. */
export type IdField = 'requestId' | 'slotId' | 'resourceId' | 'adoptionId' | 'proposalId';
/** The person's version of the record (sourceVersion), the organization's copy's (orgVersion). */
export type VersionKey = 'sourceVersion' | 'orgVersion';

type Entry = {
  /** What happened, in one sentence (the OpenAPI document and docs/events.md say it). */
  readonly says: string;
  /** The ids every event of the type carries. */
  readonly names: readonly IdField[];
  /** Carries `participant`, the pairwise alias of the legal entity the record is of (R-REQ-16), when it is of one. */
  readonly participant?: true;
  /** The versions every event of the type carries. */
  readonly versions?: readonly VersionKey[];
};

const RECORD = ['requestId', 'slotId', 'resourceId'] as const;

export const CATALOGUE = {
  'request.sent': { says: 'The organization sent a request: an invitation to the person.', names: ['requestId'] },
  'request.accepted': { says: 'The person accepted the request; the slots they answered follow as slot.granted.', names: ['requestId'] },
  'request.rejected': { says: 'The person rejected the request.', names: ['requestId'] },
  'request.cancelled': { says: 'The organization cancelled the request before the person answered.', names: ['requestId'] },
  'request.revoked': { says: 'The person ended the connection.', names: ['requestId'] },
  'request.suspended': { says: 'The person paused the connection: nothing moves until it is resumed.', names: ['requestId'] },
  'request.resumed': { says: 'The person resumed the connection.', names: ['requestId'] },
  'slot.granted': {
    says: 'The person shared a record in a slot (one event per record newly shared).',
    names: RECORD,
    participant: true,
  },
  'slot.withdrawn': { says: 'The person withdrew every record of a slot.', names: ['requestId', 'slotId'] },
  'record.updated': {
    says: 'A record shared in a slot of an active connection has a newer version: sourceVersion.',
    names: RECORD,
    participant: true,
    versions: ['sourceVersion'],
  },
  'proposal.opened': {
    says: 'A newer version of a record on a slot kept by hand waits for the organization to adopt or dismiss it.',
    names: [...RECORD, 'proposalId'],
    participant: true,
    versions: ['sourceVersion'],
  },
  'proposal.closed': {
    says: 'A proposal closed: adopted, kept, dismissed, superseded by a newer one, or withdrawn.',
    names: [...RECORD, 'proposalId'],
    participant: true,
  },
  'copy.kept': {
    says: 'The organization kept a version of the record as the next version of its copy.',
    names: [...RECORD, 'adoptionId'],
    participant: true,
    versions: ['sourceVersion', 'orgVersion'],
  },
  'copy.pending': {
    says: 'A keep waits for the organization’s key to warm (a member signing in); it is kept or discarded then.',
    names: [...RECORD, 'adoptionId'],
    participant: true,
    versions: ['sourceVersion'],
  },
  'copy.discarded': {
    says: 'A pending keep was dropped: the consent no longer stood when the key warmed.',
    names: [...RECORD, 'adoptionId'],
    participant: true,
    versions: ['sourceVersion'],
  },
  'copy.corrected': {
    says: 'A member corrected the copy: its next version, following the keep adoptionId names.',
    names: [...RECORD, 'adoptionId'],
    participant: true,
    versions: ['orgVersion'],
  },
  'copy.deleted': {
    says: 'The organization deleted its copy of the record, every version of it.',
    names: [...RECORD, 'adoptionId'],
    participant: true,
  },
  'key.warmed': { says: 'A member signed in: the organization’s key is warm, so copies can be opened and kept.', names: [] },
  'key.sealed': { says: 'A member sealed the organization’s key: it stays cold until a member signs in again.', names: [] },
} as const satisfies Readonly<Record<string, Entry>>;

export type FeedEventType = keyof typeof CATALOGUE;

export const FEED_EVENT_TYPES = Object.keys(CATALOGUE) as readonly FeedEventType[];

export const isFeedEventType = (name: string): name is FeedEventType => Object.hasOwn(CATALOGUE, name);

type EntryOf<T extends FeedEventType> = (typeof CATALOGUE)[T];

/** Every event's envelope: `id` is the same on every read and after every rebuild, for de-duplication. */
type Envelope<T extends FeedEventType> = {
  readonly id: string;
  readonly type: T;
  readonly occurredAt: string;
  readonly organizationId: string;
};

/** One event of the catalogue, typed by its entry: its ids, its participant where it may have one, its versions. */
export type FeedEventOf<T extends FeedEventType> = Envelope<T> & {
  readonly [K in EntryOf<T>['names'][number]]: string;
} & (EntryOf<T> extends {
    readonly participant: true;
  }
    ? { readonly participant?: string }
    : unknown) &
  (EntryOf<T> extends { readonly versions: readonly (infer V extends VersionKey)[] }
    ? { readonly versions: { readonly [K in V]: number } }
    : unknown);

export type FeedEvent = { [T in FeedEventType]: FeedEventOf<T> }[FeedEventType];
