import { requestDecider } from '../commands/requests/request-decider.js';
import { consentLapse, type ConsentFacts } from '../commands/requests/consent-gate.js';
import { isRefusal, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { Participant } from '../events/copy-events.js';
import type { EventContext } from '../events/envelope.js';
import { requestStream } from '../events/request-events.js';
import type { RecordReader } from '../requests/request-records.js';
import type { RequestReads } from '../requests/request-reads.js';
import type { RequestRow } from '../requests/request-queries.js';
import { slotsOf, stateOf } from '../requests/request-view.js';
import { copySql as q, copyWorkSql as w, type AdoptionRow } from './copy-queries.js';
import type { CopyKeeping } from './keep-service.js';
import type { SlotAccess } from './slot-access.js';
import type { RequestId } from '../ids.js';

export type DrainDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly reads: RequestReads;
  readonly records: RecordReader;
  readonly access: SlotAccess;
  readonly keeping: Pick<CopyKeeping, 'keepVersion'>;
  readonly now: () => Date;
};

export type Drained = { readonly materialized: number; readonly stillPending: number };

/**
 * Pending keeps (R-KEEP-10, R-KEEP-11, R-CONS-02): a drain keeps each pended adoption whose
 * consent still stands, once the key is warm, and discards the others with the gate's reason.
 */
export class PendingKeeps {
  constructor(private readonly deps: DrainDeps) {}

  /** The drain route: the request's pending keeps. */
  async drain(organizationId: string, requestId: RequestId, context: EventContext): Promise<Drained | Refusal> {
    const row = await this.deps.reads.owned(organizationId, requestId);
    return isRefusal(row) ? row : this.drainPending(row, context);
  }

  /** The drain job (R-KEEP-11): every request of the organization with pending keeps. */
  async drainOrganization(organizationId: string, context: EventContext): Promise<number> {
    let materialized = 0;
    for (const { request_id } of (await this.deps.readModels.query<{ request_id: string }>(w.pendingRequestsOf, [organizationId])).rows) {
      const row = await this.deps.reads.oneOfOrganization(organizationId, request_id);
      if (row) materialized += (await this.drainPending(row, context)).materialized;
    }
    return materialized;
  }

  private async drainPending(row: RequestRow, context: EventContext): Promise<Drained> {
    const pending = (await this.deps.readModels.query<AdoptionRow>(q.adoptionsOf, [row.request_id])).rows.filter(
      (a) => a.state === 'pending',
    );
    if (pending.length === 0) return { materialized: 0, stillPending: 0 };
    const grants = await this.deps.reads.grants([row.request_id]);
    const standing = await this.deps.records.standing(row, grants);
    const warm = this.deps.access.warm(row);
    const connection = stateOf(row, this.deps.now());
    let materialized = 0;
    let discarded = 0;
    for (const a of pending) {
      const facts = this.deps.records.factsFor(connection, grants, standing, a.slot_id, a.source_resource_id);
      if (consentLapse(facts) !== null && (await this.discard(row, a, facts, context))) {
        discarded++;
        continue;
      }
      const slot = slotsOf(row).find((s) => s.slotId === a.slot_id);
      if (!warm || !slot) continue;
      const record = { resourceId: a.source_resource_id, participant: (a.participant ?? null) as Participant };
      const order = { row, slot, grants, record, sourceVersion: a.source_version, warm, adoptedAt: new Date(a.adopted_at).toISOString() };
      const kept = await this.deps.keeping.keepVersion({ ...order, closesProposals: true }, context);
      // The version could not be read at the moment of the keep: it no longer resolves.
      if (kept === null && (await this.discard(row, a, { ...facts, resolves: false }, context))) discarded++;
      else if (!isRefusal(kept) && kept?.state === 'materialized') materialized++;
    }
    return { materialized, stillPending: pending.length - materialized - discarded };
  }

  /**
   * Whether the keep is out of the pending ones: discarded by the request's decider now (it decides
   * on its own state: the connection and grants), or no longer pended (a concurrent drain took it).
   */
  private async discard(row: RequestRow, a: AdoptionRow, facts: ConsentFacts, context: EventContext): Promise<boolean> {
    const command = {
      now: this.deps.now(),
      adoptionId: a.adoption_id,
      slotId: a.slot_id,
      sourceResourceId: a.source_resource_id,
      sourceVersion: a.source_version,
      resolves: facts.resolves,
      eligible: facts.eligible,
    };
    const done = await handle(
      this.deps,
      requestStream(row.request_id),
      requestDecider,
      { type: 'DiscardLapsed', data: command },
      { context },
    );
    return !isRefusal(done);
  }
}
