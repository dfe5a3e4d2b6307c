import { requestDecider } from '../commands/requests/request-decider.js';
import { consentLapse, type ConsentFacts } from '../commands/requests/consent-gate.js';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import { orgResourceIdOf, type Participant } from '../events/copy-events.js';
import type { EventContext } from '../events/envelope.js';
import { requestStream } from '../events/request-events.js';
import { grantOf, type RecordReader } from '../requests/request-records.js';
import type { RequestReads } from '../requests/request-reads.js';
import type { GrantRow, RequestRow } from '../requests/request-queries.js';
import { slotsOf, stateOf } from '../requests/request-view.js';
import { copySql as q, copyWorkSql as w, type AdoptionRow } from './copy-queries.js';
import type { Adoption } from './copy-view.js';
import { CONTENDED_RETRIES, type CopyKeeping } from './keep-service.js';
import type { SlotAccess } from './slot-access.js';
import type { RequestId } from '../ids.js';
import type { VaultKeyring, VaultKeys } from '../vaults/keyring.js';

export type DrainDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly keyring: Pick<VaultKeyring, 'sealersAndOpeners'>;
  readonly reads: RequestReads;
  readonly records: RecordReader;
  readonly access: SlotAccess;
  readonly keeping: Pick<CopyKeeping, 'keepVersion' | 'closeReached'>;
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
    const adoptions = (await this.deps.readModels.query<AdoptionRow>(q.adoptionsOf, [row.request_id])).rows;
    const pending = adoptions.filter((a) => a.state === 'pending');
    if (pending.length === 0) return { materialized: 0, stillPending: 0 };
    const grants = chainedFrom(await this.deps.reads.grantsToDrain(row.request_id), adoptions);
    const standing = await this.deps.records.standing(row, grants);
    const warm = this.deps.access.warm(row);
    const connection = stateOf(row, this.deps.now());
    const factsOf = (a: AdoptionRow) => this.deps.records.factsFor(connection, grants, standing, a.slot_id, a.source_resource_id);
    const keys = warm
      ? this.keysOf(
          row.request_id,
          pending.filter((a) => consentLapse(factsOf(a)) === null),
          grants,
        )
      : undefined;
    const drainOne = async (a: AdoptionRow): Promise<'materialized' | 'discarded' | null> => {
      const facts = factsOf(a);
      if (consentLapse(facts) !== null) {
        const discarded = await this.discard(row, a, facts, context);
        if (discarded === 'discarded') return 'discarded';
        // R-CONS-02: nothing is kept while the request's own state is unread; the next drain decides.
        if (discarded === 'contended') return null;
      }
      const slot = slotsOf(row).find((s) => s.slotId === a.slot_id);
      if (!warm || !slot) return null;
      const record = { resourceId: a.source_resource_id, participant: (a.participant ?? null) as Participant };
      const order = { row, slot, grants, record, sourceVersion: a.source_version, warm, adoptedAt: new Date(a.adopted_at).toISOString() };
      const kept = await this.deps.keeping.keepVersion({ ...order, proposals: 'after', keys }, context);
      // The version could not be read at the moment of the keep: it no longer resolves.
      if (kept === null && (await this.discard(row, a, { ...facts, resolves: false }, context)) === 'discarded') return 'discarded';
      if (isRefusal(kept) || kept?.state !== 'materialized') return null;
      materialized.push(kept);
      return 'materialized';
    };
    const materialized: Adoption[] = [];
    // Chains apart, a chain's own versions in the order they were pended: its versions follow that order.
    // R-KEEP-13 for every keep made, also when another failed the drain (its job runs again, finding these kept).
    const outcomes = (
      await eachChain(pending, drainOne).finally(() => this.deps.keeping.closeReached(row.request_id, materialized, context))
    ).flat();
    const discarded = outcomes.filter((o) => o === 'discarded').length;
    return { materialized: materialized.length, stillPending: pending.length - materialized.length - discarded };
  }

  /**
   * The keys of the chains these keeps go into and of their records' vaults, read in one statement
   * (the chains' made on first use) instead of one per keep: read per use still, as of the drain's
   * start, where its consent facts are read too.
   */
  private keysOf(requestId: string, keeps: readonly AdoptionRow[], grants: readonly GrantRow[]): VaultKeys | undefined {
    if (keeps.length === 0) return undefined;
    const chains = keeps.map((a) => orgResourceIdOf(requestId, a.slot_id, a.source_resource_id));
    const sources = keeps.flatMap((a) => grantOf(grants, a.slot_id, a.source_resource_id)?.vault_id ?? []);
    return this.deps.keyring.sealersAndOpeners(chains, sources);
  }

  /**
   * Whether the keep is out of the pending ones ('discarded'): discarded by the request's decider
   * now (it decides on its own state: the connection and grants), or no longer pended (a
   * concurrent drain took it). 'stands': the decider found its consent standing, so it is kept;
   * 'contended': the request's stream kept changing under the discard, so nothing is decided.
   */
  private async discard(
    row: RequestRow,
    a: AdoptionRow,
    facts: ConsentFacts,
    context: EventContext,
  ): Promise<'discarded' | 'stands' | 'contended'> {
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
      // A drain's chains discard on one request stream at once (CHAINS_AT_ONCE): each retry decides anew.
      { context, retries: CONTENDED_RETRIES, onClash: CONTENDED },
    );
    if (done === CONTENDED) return 'contended';
    return isRefusal(done) ? 'stands' : 'discarded';
  }
}

/** A copy chain of the request: one record's on one slot. */
const chainKey = (slotId: string, resourceId: string): string => `${slotId} ${resourceId}`;

/**
 * GrantRow.chained from the request's adoptions, read already: a record's chain on a slot has a
 * version once one of its adoptions there is materialized. A keep then takes a chain without one
 * as empty without reading it (keepVersion), its append refusing the guess if the rows were behind.
 */
function chainedFrom(grants: readonly GrantRow[], adoptions: readonly AdoptionRow[]): GrantRow[] {
  const chains = new Set(adoptions.filter((a) => a.state === 'materialized').map((a) => chainKey(a.slot_id, a.source_resource_id)));
  return grants.map((g) => ({ ...g, chained: chains.has(chainKey(g.slot_id, g.resource_id)) }));
}

/** Chains a drain keeps into at once: their appends and the reads that follow them overlap. */
const CHAINS_AT_ONCE = 4;
/** The discard's answer when its retries ran out: not the decider's refusal, which says consent stands. */
const CONTENDED: Refusal = refuse('conflict', 'the request kept changing during the discard');

/**
 * `fn` over the pending keeps, CHAINS_AT_ONCE chains at a time and each chain's keeps one after
 * the other; settles every one before it answers or throws (a job retried must not race its own run).
 */
async function eachChain<T>(pending: readonly AdoptionRow[], fn: (a: AdoptionRow) => Promise<T>): Promise<T[][]> {
  const chains = new Map<string, AdoptionRow[]>();
  for (const a of pending) {
    const key = chainKey(a.slot_id, a.source_resource_id);
    chains.set(key, [...(chains.get(key) ?? []), a]);
  }
  const queue = [...chains.values()];
  const run = async (): Promise<T[][]> => {
    const done: T[][] = [];
    for (let chain = queue.shift(); chain; chain = queue.shift()) {
      const outcomes: T[] = [];
      for (const a of chain) outcomes.push(await fn(a));
      done.push(outcomes);
    }
    return done;
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(CHAINS_AT_ONCE, queue.length) }, run));
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
}
