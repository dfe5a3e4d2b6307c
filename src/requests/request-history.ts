import type { SqlExecutor } from '../db/sql.js';
import type { RecordedEvent } from '../events/envelope.js';
import { chainStream } from '../events/copy-events.js';
import { comparePositions, type Position } from '../events/position.js';
import { requestStream } from '../events/request-events.js';
import type { EventStore } from '../events/store.js';
import { historyEntryOf, type HistoryEntry } from './history-entry.js';
import type { MemberAliases } from './participant-alias.js';

const chainsOf = `SELECT DISTINCT slot_id::text AS slot_id, source_resource_id::text AS source_resource_id
                  FROM rm.adoptions WHERE request_id = $1 AND org_resource_id IS NOT NULL`;
const emailsOf = `SELECT identity_id::text AS identity_id, email FROM rm.identities WHERE identity_id = ANY($1::uuid[])`;

export type RequestHistoryDeps = {
  readonly store: Pick<EventStore, 'readStream'>;
  readonly readModels: SqlExecutor;
  readonly memberAliases: MemberAliases;
};

/**
 * R-HIST-01: the audit history of one request, read from the log itself rather than a read model,
 * so it holds every event exactly as stored: the request's stream and each of its copy chains,
 * merged in log order. The caller has already checked the request is theirs to see.
 */
export class RequestHistory {
  constructor(private readonly deps: RequestHistoryDeps) {}

  /** R-HIST-03: as the person reads it, each member by a pseudonym of (organization, member), never an address. */
  async forPerson(requestId: string, organizationId: string): Promise<HistoryEntry[]> {
    const events = await this.events(requestId);
    const pseudonyms = new Map(membersOf(events).map((m) => [m, this.deps.memberAliases.aliasFor(organizationId, m)]));
    return events.map((e) => historyEntryOf(e, pseudonyms));
  }

  /** R-HIST-04: as the organization reads it, `limit` entries after position `after` (null: the first) and the next page's `after`. */
  async page(requestId: string, after: Position | null, limit: number): Promise<{ history: HistoryEntry[]; nextAfter: string | null }> {
    const events = (await this.events(requestId)).filter((e) => after === null || comparePositions(e.position, after) > 0);
    const page = events.slice(0, limit);
    const history = page.map(await this.entryMaker(page));
    return { history, nextAfter: events.length > limit ? history.at(-1)!.position : null };
  }

  private async events(requestId: string): Promise<RecordedEvent[]> {
    const chains = (await this.deps.readModels.query<{ slot_id: string; source_resource_id: string }>(chainsOf, [requestId])).rows;
    const streams = [requestStream(requestId).id, ...chains.map((c) => chainStream(requestId, c.slot_id, c.source_resource_id).id)];
    const events = (await Promise.all(streams.map((s) => this.deps.store.readStream(s)))).flat();
    return events.sort((a, b) => comparePositions(a.position, b.position));
  }

  private async entryMaker(events: readonly RecordedEvent[]): Promise<(e: RecordedEvent) => HistoryEntry> {
    const members = membersOf(events);
    const rows =
      members.length === 0 ? [] : (await this.deps.readModels.query<{ identity_id: string; email: string }>(emailsOf, [members])).rows;
    const emails = new Map(rows.map((r) => [r.identity_id, r.email]));
    return (e) => historyEntryOf(e, emails);
  }
}

/** The identity ids of the members who acted in these events. */
const membersOf = (events: readonly RecordedEvent[]): string[] => [
  ...new Set(events.filter((e) => e.metadata.actor.kind === 'member').map((e) => e.metadata.actor.id)),
];
