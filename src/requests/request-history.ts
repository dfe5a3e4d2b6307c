import type { SqlExecutor } from '../db/sql.js';
import type { RecordedEvent } from '../events/envelope.js';
import { chainStream } from '../events/copy-events.js';
import { comparePositions } from '../events/position.js';
import { requestStream } from '../events/request-events.js';
import type { EventStore } from '../events/store.js';
import { historyEntryOf, type HistoryEntry } from './history-entry.js';

const chainsOf = `SELECT DISTINCT slot_id::text AS slot_id, source_resource_id::text AS source_resource_id
                  FROM rm.adoptions WHERE request_id = $1 AND org_resource_id IS NOT NULL`;
const emailsOf = `SELECT identity_id::text AS identity_id, email FROM rm.identities WHERE identity_id = ANY($1::uuid[])`;

export type RequestHistoryDeps = { readonly store: Pick<EventStore, 'readStream'>; readonly readModels: SqlExecutor };

/**
 * R-HIST-01: the audit history of one request, read from the log itself rather than a read model,
 * so it holds every event exactly as stored: the request's stream and each of its copy chains,
 * merged in log order. The caller has already checked the request is theirs to see.
 */
export class RequestHistory {
  constructor(private readonly deps: RequestHistoryDeps) {}

  async of(requestId: string): Promise<HistoryEntry[]> {
    const chains = (await this.deps.readModels.query<{ slot_id: string; source_resource_id: string }>(chainsOf, [requestId])).rows;
    const streams = [requestStream(requestId).id, ...chains.map((c) => chainStream(requestId, c.slot_id, c.source_resource_id).id)];
    const events = (await Promise.all(streams.map((s) => this.deps.store.readStream(s)))).flat();
    events.sort((a, b) => comparePositions(a.position, b.position));
    return events.map(await this.entryMaker(events));
  }

  private async entryMaker(events: readonly RecordedEvent[]): Promise<(e: RecordedEvent) => HistoryEntry> {
    const members = [...new Set(events.filter((e) => e.metadata.actor.kind === 'member').map((e) => e.metadata.actor.id))];
    const rows =
      members.length === 0 ? [] : (await this.deps.readModels.query<{ identity_id: string; email: string }>(emailsOf, [members])).rows;
    const emails = new Map(rows.map((r) => [r.identity_id, r.email]));
    return (e) => historyEntryOf(e, emails);
  }
}
