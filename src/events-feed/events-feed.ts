import { refuse, type Refusal } from '../commands/refusal.js';
import type { SqlExecutor } from '../db/sql.js';
import type { ParticipantAliases } from '../requests/index.js';
import { CATALOGUE, isFeedEventType, type FeedEvent, type FeedEventType, type IdField, type VersionKey } from './catalogue.js';

/** A page as asked for: after which cursor (null: from the start), how many events, of which types (null: all). */
export type FeedQuery = {
  readonly after: string | null;
  readonly limit: number;
  readonly types: readonly FeedEventType[] | null;
};

/** `nextCursor`: where the next page starts; the `after` given when nothing came since, null while the feed is empty. */
export type FeedPage = { readonly events: FeedEvent[]; readonly nextCursor: string | null };

/**
 * How many of the organization's events a page filtered by type looks through at most: a page stays
 * cheap however rare the types asked for are, and its cursor moves past what it looked through.
 */
const SCAN_BOUND = 10_000;

/** A place in the feed: its source event's in the log, and the event's number among those that one gave. */
type Place = { readonly commit: string; readonly prepare: string; readonly ordinal: number };

type FeedRow = Place & {
  readonly id: string;
  readonly type: string;
  readonly occurred_at: Date | string;
  readonly request_id: string | null;
  readonly slot_id: string | null;
  readonly resource_id: string | null;
  readonly entity_id: string | null;
  readonly adoption_id: string | null;
  readonly proposal_id: string | null;
  readonly source_version: number | null;
  readonly org_version: number | null;
  /** The page's n-th event from 1; 0 for the last event looked through. */
  readonly n: number;
};

/** A feed event's id, the same on every rebuild (R-FEED-06): derived from its row, which stores none. */
export const FEED_EVENT_ID = `md5(source_event_id::text || '/' || type || '/' || coalesce(request_id::text, '') || '/'
                || coalesce(slot_id::text, '') || '/' || coalesce(resource_id::text, ''))::uuid::text`;

const COLUMNS = `commit_pos::text AS commit, prepare_pos::text AS prepare, ordinal, ${FEED_EVENT_ID} AS id, type, occurred_at,
                 request_id::text AS request_id, slot_id::text AS slot_id, resource_id::text AS resource_id, entity_id::text AS entity_id,
                 adoption_id::text AS adoption_id, proposal_id::text AS proposal_id, source_version, org_version`;

/** The wanted events after a place, in order, and after them the last event looked through. */
const PAGE = `
  WITH scanned AS (
    SELECT * FROM rm.events_feed
    WHERE organization_id = $1 AND (commit_pos, prepare_pos, ordinal) > ($2::numeric, $3::numeric, $4::integer)
    ORDER BY commit_pos, prepare_pos, ordinal LIMIT $5),
  wanted AS (
    SELECT * FROM scanned WHERE $6::text[] IS NULL OR type = ANY($6::text[]) ORDER BY commit_pos, prepare_pos, ordinal LIMIT $7)
  SELECT ${COLUMNS}, (row_number() OVER (ORDER BY commit_pos, prepare_pos, ordinal))::integer AS n FROM wanted
  UNION ALL
  (SELECT ${COLUMNS}, 0 AS n FROM scanned ORDER BY commit_pos DESC, prepare_pos DESC, ordinal DESC LIMIT 1)
  ORDER BY n`;

const BEFORE_ALL: Place = { commit: '-1', prepare: '-1', ordinal: -1 };

/** A cursor, opaque to the client: a place in the feed, which no later event or rebuild moves. */
const cursorOf = (p: Place): string => Buffer.from(`${p.commit}.${p.prepare}.${p.ordinal}`, 'utf8').toString('base64url');

function placeOf(cursor: string): Place | null {
  const m = /^(0|[1-9]\d{0,19})\.(0|[1-9]\d{0,19})\.(0|[1-9]\d{0,8})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) return null;
  const place = { commit: m[1]!, prepare: m[2]!, ordinal: Number(m[3]) };
  return cursorOf(place) === cursor ? place : null;
}

const ID_COLUMNS: Readonly<Record<IdField, keyof FeedRow>> = {
  requestId: 'request_id',
  slotId: 'slot_id',
  resourceId: 'resource_id',
  adoptionId: 'adoption_id',
  proposalId: 'proposal_id',
};
const VERSION_COLUMNS: Readonly<Record<VersionKey, keyof FeedRow>> = { sourceVersion: 'source_version', orgVersion: 'org_version' };

/** The events feed (contract §12) as an organization reads it: its own events only, in log order. */
export class EventsFeed {
  constructor(
    private readonly readModels: SqlExecutor,
    private readonly aliases: ParticipantAliases,
  ) {}

  async page(organizationId: string, query: FeedQuery): Promise<FeedPage | Refusal> {
    const from = query.after === null ? BEFORE_ALL : placeOf(query.after);
    if (from === null) return refuse('invalid_request', 'after is not a cursor this feed gave');
    const rows = (
      await this.readModels.query<FeedRow>(PAGE, [
        organizationId,
        from.commit,
        from.prepare,
        from.ordinal,
        query.types === null ? query.limit : SCAN_BOUND,
        query.types,
        query.limit,
      ])
    ).rows;
    const events = rows.filter((r) => r.n > 0);
    // A full page ends at its last event; a shorter one holds every wanted event of what it looked through.
    const end = events.length === query.limit ? events.at(-1) : rows.find((r) => r.n === 0);
    return { events: events.map((r) => this.eventOf(organizationId, r)), nextCursor: end ? cursorOf(end) : query.after };
  }

  /** The row as its catalogue entry has it: the ids it names, the participant's alias, its versions. */
  private eventOf(organizationId: string, row: FeedRow): FeedEvent {
    if (!isFeedEventType(row.type)) throw new Error(`the events feed holds a type the catalogue lacks: ${row.type}`);
    const entry = CATALOGUE[row.type];
    const names: readonly IdField[] = entry.names;
    const event: Record<string, unknown> = {
      id: row.id,
      type: row.type,
      occurredAt: new Date(row.occurred_at).toISOString(),
      organizationId,
    };
    for (const name of ['requestId', 'slotId', 'resourceId'] as const) if (names.includes(name)) event[name] = row[ID_COLUMNS[name]];
    if ('participant' in entry && row.entity_id !== null) event.participant = this.aliases.aliasFor(organizationId, row.entity_id);
    for (const name of ['adoptionId', 'proposalId'] as const) if (names.includes(name)) event[name] = row[ID_COLUMNS[name]];
    if ('versions' in entry) event.versions = Object.fromEntries(entry.versions.map((v: VersionKey) => [v, row[VERSION_COLUMNS[v]]]));
    // Written for this type by the events-feed projector, which names exactly what its entry lists.
    return event as FeedEvent;
  }
}
