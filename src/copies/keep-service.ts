import { randomUUID } from 'node:crypto';
import { chainDecider } from '../commands/copies/chain-decider.js';
import { requestDecider } from '../commands/requests/request-decider.js';
import { hasVersion } from '../commands/version-set.js';
import { LAPSE_MESSAGES, lapseRefusal } from '../commands/requests/consent-gate.js';
import type { KeptContent } from '../commands/copies/keep-copy.js';
import { emptyChain, evolveChain } from '../commands/copies/chain-state.js';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import { readFolded, recallFolded } from '../commands/stream-folds.js';
import type { SqlExecutor } from '../db/sql.js';
import { adoptionIdOf, chainStream, orgResourceIdOf, type ChainEvent, type Participant } from '../events/copy-events.js';
import { readDecoded, type StreamRef } from '../events/decoder.js';
import type { EventContext } from '../events/envelope.js';
import type { Position } from '../events/position.js';
import { requestStream } from '../events/request-events.js';
import type { BlobStore } from '../files/blob-store.js';
import type { RequestId, ResourceId, SlotId } from '../ids.js';
import type { GrantRow, RequestRow } from '../requests/request-queries.js';
import { grantOf, type RecordEntry } from '../requests/request-records.js';
import type { Slot } from '../events/manifest-events.js';
import { unlessErased, type Seal, type VaultKeyring, type VaultKeys } from '../vaults/keyring.js';
import { copySql as q, copyWorkSql as w, type AdoptionRow, type KeptAnswerRow } from './copy-queries.js';
import { keptContext } from './copy-seal.js';
import { adoptionOf, adoptionOfKept, type Adoption } from './copy-view.js';
import type { SlotAccess, SlotInView } from './slot-access.js';
import { readSourceVersion, type SourceVersion } from './source-version.js';

export type KeepDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly access: SlotAccess;
  readonly keyring: VaultKeyring;
  readonly blobs: BlobStore;
  readonly now: () => Date;
};

export type Skipped = { readonly resourceId: string; readonly participant: Participant; readonly reason: string; readonly message: string };
export type KeepResult = { readonly adoptions: readonly Adoption[]; readonly skipped: readonly Skipped[] };

/** One keep of one source version of one record, on a slot the consent gate let through. */
export type KeepOrder = {
  readonly row: RequestRow;
  readonly slot: Slot;
  /** The slot's grants as read with the request, or a drain's of the whole request: the record's vault key is then read with its stream. */
  readonly grants: readonly GrantRow[];
  readonly record: { readonly resourceId: string; readonly participant: Participant };
  readonly sourceVersion: number;
  /** Warm: kept into the chain; cold: pended on the request (R-KEEP-08). */
  readonly warm: boolean;
  readonly adoptedAt: string;
  /**
   * Who closes the open proposals the keep reaches (R-KEEP-13): the keep itself ('keep'); the
   * caller's own decision ('caller': a proposal adopt closes its proposal); or the caller once all
   * of its keeps are done ('after': a drain, with closeReached, one read for all of them).
   */
  readonly proposals: 'keep' | 'caller' | 'after';
  /**
   * The chain's and the source vault's keys, when a drain read them with its other chains' (else as
   * the grant's row brought them, or read with the version).
   */
  readonly keys?: VaultKeys;
};

/**
 * Keeping copies (R-KEEP-*): keep, the automatic keep and a proposal's keep. Only records the
 * consent gate lets through are kept (their RecordEntry is available). Kept content is sealed
 * with a key of each copy chain's own (its vault id is the chain's orgResourceId), so one copy can
 * be shredded alone (R-ERAS-02).
 */
/** Retries of an append to a stream that concurrent keeps write too (a chain, a drain's request): each decides anew. */
export const CONTENDED_RETRIES = 20;

export class CopyKeeping {
  constructor(private readonly deps: KeepDeps) {}

  async keep(
    organizationId: string,
    requestId: RequestId,
    slotId: SlotId,
    alias: string | null,
    context: EventContext,
  ): Promise<KeepResult | Refusal> {
    const found = await this.deps.access.slotIn(organizationId, requestId, slotId);
    return isRefusal(found) ? found : this.keepIn(found, alias, context);
  }

  /**
   * The automatic keep (R-KEEP-09): the slot's standing records, on an auto slot only. What a
   * manual keep would refuse (nothing standing, no keep verb) is simply not kept.
   */
  async keepAutomatically(requestId: RequestId, slotId: SlotId, context: EventContext): Promise<void> {
    const owner = (await this.deps.readModels.query<{ organization_id: string }>(w.organizationOf, [requestId])).rows[0];
    if (!owner) return;
    const found = await this.deps.access.slotIn(owner.organization_id, requestId, slotId);
    if (isRefusal(found) || found.slot.adoption !== 'auto') return;
    await this.keepIn(found, null, context);
  }

  /** Proposal adopt (R-PROP-04): exactly the proposed version of one record, warm only, through the consent gate. */
  async keepProposed(found: SlotInView, resourceId: string, version: number, context: EventContext): Promise<Adoption | Refusal> {
    const record = found.records.find((r) => r.resourceId === resourceId);
    if (!record) return lapseRefusal('not_granted');
    if (record.status === 'unavailable') return lapseRefusal(record.reason ?? 'source_unavailable');
    // The proposal is closed by its own adopt decision, which tells concurrent adopters apart.
    const kept = await this.keepVersion(
      { ...found, record, sourceVersion: version, warm: true, adoptedAt: this.now(), proposals: 'caller' },
      context,
    );
    return kept ?? lapseRefusal('source_unavailable', 'the proposed version can no longer be read');
  }

  /** The keep of a slot already read: its standing records, or those of one participant. */
  private async keepIn(found: SlotInView, alias: string | null, context: EventContext): Promise<KeepResult | Refusal> {
    if (!found.slot.verbs.includes('keep')) return refuse('adoption_refused', 'this slot does not allow keeping copies');
    const records = alias === null ? found.records : found.records.filter((r) => r.participant?.alias === alias);
    if (records.length === 0)
      return refuse(
        'adoption_refused',
        alias === null ? 'the slot has no granted record' : 'no granted record of the slot has that participant',
      );
    const warm = this.deps.access.warm(found.row);
    const adoptions: Adoption[] = [];
    const skipped: Skipped[] = [];
    // The keys read with the request serve the first keep alone: each later one reads its own, so
    // an erasure committed while the slot's records are kept one by one counts from the next (R-ERAS-03).
    const unkeyed = found.grants.map(({ keys: _read, ...grant }) => grant);
    let grants = found.grants;
    for (const record of records) {
      if (record.status === 'unavailable' || record.sourceVersion === undefined) {
        skipped.push(skip(record, record.reason ?? 'source_unavailable'));
        continue;
      }
      const order = {
        ...found,
        grants,
        record,
        sourceVersion: record.sourceVersion,
        warm,
        adoptedAt: this.now(),
        proposals: 'keep',
      } as const;
      grants = unkeyed;
      const kept = await this.keepVersion(order, context);
      if (isRefusal(kept)) return kept;
      if (kept === null) skipped.push(skip(record, 'source_unavailable'));
      else adoptions.push(kept);
    }
    if (adoptions.length > 0) return { adoptions, skipped };
    // R-KEEP-05: a keep that took nothing says why.
    return skipped.every((s) => s.reason === 'participant_ineligible')
      ? refuse('participant_ineligible', 'the recipient may no longer answer for any party of these records')
      : refuse('adoption_refused', 'nothing of this slot could be kept');
  }

  /**
   * One record's keep of one source version: into its chain when the key is warm, else pended on
   * the request. Null when that version can no longer be read (it was deleted, or its vault erased).
   */
  async keepVersion(order: KeepOrder, context: EventContext): Promise<Adoption | Refusal | null> {
    const { row, slot, record, sourceVersion, warm } = order;
    const requestId = row.request_id;
    const adoptionId = adoptionIdOf(requestId, slot.slotId, record.resourceId, sourceVersion);
    const chain = chainStream(requestId, slot.slotId, record.resourceId);
    const orgResourceId = orgResourceIdOf(requestId, slot.slotId, record.resourceId);
    // Warm, the version's content and the chain's key are read with the chain, in the same round
    // trips: what they cost when the chain turns out to hold the keep already is the rare case. A
    // chain this process holds is taken from memory (recallFolded), and one the read models show
    // without a version as empty: a keep memory shows is kept, and the keep's append
    // compare-and-sets the rest. Cold, the decision to pend is appended to the
    // request, which proves nothing of the chain: it reads.
    const [chainFolded, sourcing] = await Promise.all([
      warm
        ? recallFolded(this.deps.store, chain, chainFold, grantOf(order.grants, slot.slotId, record.resourceId)?.chained === false)
        : readFolded(this.deps.store, chain, chainFold),
      warm ? this.sourced(order, orgResourceId) : null,
    ]);
    /** The event this call wrote to record the keep, when it wrote one: nothing to look up afterwards. */
    let written: Recorded | null = null;
    /** The adoption the chain's event written here says, when it wrote one: the answer, without reading it back. */
    let keptHere: Adoption | null = null;
    // A chain deleted since, or a version not kept yet, is the decider's to answer; a kept one is looked up.
    if (chainFolded.state.deleted || !hasVersion(chainFolded.state.keeps, sourceVersion)) {
      const resourceType = slot.kind === 'file' ? ('file' as const) : ('document' as const);
      const base = {
        requestId,
        organizationId: row.organization_id,
        adoptionId,
        slotId: slot.slotId,
        sourceResourceId: record.resourceId,
        sourceVersion,
        participant: record.participant,
        adoptedAt: order.adoptedAt,
      };
      if (!sourcing) {
        const pended = await handle(
          this.deps,
          requestStream(requestId),
          requestDecider,
          { type: 'PendAdoption', data: { adoption: { ...base, resourceType }, chainDeleted: chainFolded.state.deleted } },
          { context },
        );
        if (isRefusal(pended)) return pended;
        if (pended.position) written = { position: pended.position, type: 'AdoptionPended', adoptionId };
      } else {
        const [source, seal] = sourcing;
        // A version that no longer resolves is no one's refusal: the caller skips or discards it.
        if (seal && !source) return null;
        const content = seal && source ? await this.contentOf(source, seal, keptContext(orgResourceId, adoptionId)) : null;
        const command = { ...base, orgResourceId, now: this.deps.now(), content };
        const kept = await handle(
          this.deps,
          chain,
          chainDecider,
          { type: 'KeepCopy', data: command },
          { context, retries: CONTENDED_RETRIES, known: chainFolded },
        );
        if (isRefusal(kept)) return kept;
        const keptEvent = kept.events.find((e) => e.type === 'CopyKept');
        if (kept.position && keptEvent) {
          written = { position: kept.position, type: 'CopyKept', adoptionId };
          keptHere = adoptionOfKept(keptEvent.data);
        } else if (content?.file) await this.deps.blobs.delete(content.file.blobId);
      }
    }
    const recorded = written ?? (await this.recorded(requestId, chain, sourceVersion, adoptionId));
    // Read models are read once they hold the keep's event, and every proposal opened before it.
    if (recorded)
      await this.deps.waitFor(recorded.position, order.proposals === 'caller' ? [recorded.type] : [recorded.type, 'ProposalOpened']);
    const { adoption, reached } =
      order.proposals === 'keep'
        ? await this.keptAnswer(requestId, recorded?.adoptionId ?? null, slot.slotId, record.resourceId, sourceVersion)
        : { adoption: keptHere ?? (recorded ? await this.adoption(requestId, recorded.adoptionId) : null), reached: false };
    if (reached) {
      const closing = await this.closeKept(requestId, slot.slotId, record.resourceId, sourceVersion, context);
      if (closing) return closing;
    }
    return adoption;
  }

  /**
   * R-KEEP-13: closes the open proposals of the record that `keptVersion` (kept or pended) reaches,
   * as the request's stream has them; also run by the new-version reaction for a keep it raced.
   */
  async closeKept(
    requestId: string,
    slotId: string,
    resourceId: string,
    keptVersion: number,
    context: EventContext,
  ): Promise<Refusal | null> {
    const closing = await handle(
      this.deps,
      requestStream(requestId),
      requestDecider,
      { type: 'CloseKeptProposals', data: { now: this.deps.now(), slotId, resourceId, keptVersion } },
      // A drain keeps several chains of one request at once, each closing on the request's stream.
      { context, retries: CONTENDED_RETRIES },
    );
    return isRefusal(closing) ? closing : null;
  }

  /**
   * R-KEEP-13 for keeps made with `proposals: 'after'`, once they are done (their keepVersion
   * answered, so the read models hold them and every proposal opened before them): the open
   * proposals any of them reaches, read in one statement, are closed.
   */
  async closeReached(requestId: string, kept: readonly Adoption[], context: EventContext): Promise<void> {
    if (kept.length === 0) return;
    const params = [requestId, kept.map((a) => a.slotId), kept.map((a) => a.sourceResourceId), kept.map((a) => a.sourceVersion)];
    const reached = (await this.deps.readModels.query<ReachedRow>(w.proposalsReached, params)).rows;
    for (const r of reached) await this.closeKept(requestId, r.slot_id, r.resource_id, r.kept_version, context);
  }

  /** The newest version of the record kept or pended on the slot (0 when none); given `after`, once the read models hold it. */
  async newestAdopted(requestId: string, slotId: string, resourceId: string, after: Position | null = null): Promise<number> {
    if (after) await this.deps.waitFor(after, ['CopyKept', 'AdoptionPended']);
    const row = (await this.deps.readModels.query<{ version: number | null }>(w.newestAdopted, [requestId, slotId, resourceId])).rows[0];
    return row?.version ?? 0;
  }

  /** Where a resource is granted now: the (request, slot) pairs a new version of it may be kept on. */
  async grantsOf(resourceId: string): Promise<{ requestId: RequestId; slotId: SlotId }[]> {
    // Ids as the read model holds them: in their one form already.
    const rows = (await this.deps.readModels.query<{ request_id: RequestId; slot_id: SlotId }>(w.grantsOfResource, [resourceId])).rows;
    return rows.map((r) => ({ requestId: r.request_id, slotId: r.slot_id }));
  }

  /** Which of these resources are granted on some slot now (one query for a page of new versions). */
  async grantedAmong(resourceIds: readonly ResourceId[]): Promise<Set<string>> {
    const rows = (await this.deps.readModels.query<{ resource_id: string }>(w.grantedAmong, [resourceIds])).rows;
    return new Set(rows.map((r) => r.resource_id));
  }

  /**
   * The keep's adoption, and R-KEEP-13: whether an open proposal of the record asks for a version
   * the keep reached, both in one statement. A proposal opened after this read is closed by the
   * new-version reaction, which looks for a keep again once it has opened one
   * (ProposalService.notice): each side reads after its own write, so one of the two always sees the other.
   */
  private async keptAnswer(
    requestId: string,
    adoptionId: string | null,
    slotId: string,
    resourceId: string,
    keptVersion: number,
  ): Promise<{ adoption: Adoption | null; reached: boolean }> {
    const params = [requestId, adoptionId, slotId, resourceId, keptVersion];
    const { reaches_open_proposal: reached, ...row } = (await this.deps.readModels.query<KeptAnswerRow>(q.keptAnswer, params)).rows[0]!;
    return { adoption: row.adoption_id === null ? null : adoptionOf(row as AdoptionRow), reached };
  }

  private async adoption(requestId: string, adoptionId: string): Promise<Adoption | null> {
    const row = (await this.deps.readModels.query<AdoptionRow>(q.adoptionOf, [requestId, adoptionId])).rows[0];
    return row ? adoptionOf(row) : null;
  }

  /** The event that records this keep: the chain's version of that source version, else the pended adoption. */
  private async recorded(
    requestId: string,
    chain: StreamRef<ChainEvent>,
    sourceVersion: number,
    adoptionId: string,
  ): Promise<Recorded | null> {
    for (const e of await readDecoded(this.deps.store, chain)) {
      if (e.type === 'CopyKept' && e.data.sourceVersion === sourceVersion)
        return { position: e.position, type: e.type, adoptionId: e.data.adoptionId };
    }
    for (const e of await readDecoded(this.deps.store, requestStream(requestId))) {
      if (e.type === 'AdoptionPended' && e.data.adoptionId === adoptionId) return { position: e.position, type: e.type, adoptionId };
    }
    return null;
  }

  /**
   * The version to keep, and the chain's sealer: the keys as the grant's row brought them, else both
   * in one query when the grant names the source's vault; the version from the grant's row when it is
   * the newest document read with it.
   */
  private sourced(order: KeepOrder, orgResourceId: string): Promise<[SourceVersion | null, Seal | null]> {
    const { record, sourceVersion } = order;
    const grant = grantOf(order.grants, order.slot.slotId, record.resourceId);
    const vaultId = grant?.vault_id;
    const { keyring } = this.deps;
    // Keys read with the grant are used as read: a chain that has its key then takes no statement for it.
    const keys =
      order.keys ?? (grant?.keys ? keyring.keysRead(grant.keys) : keyring.sealersAndOpeners([orgResourceId], vaultId ? [vaultId] : []));
    const hint = vaultId ? { vaultId, opener: keys.opener(vaultId) } : null;
    return Promise.all([
      readSourceVersion(this.deps, record.resourceId, sourceVersion, hint, grant?.document ?? null),
      unlessErased(keys.sealer(orgResourceId)),
    ]);
  }

  /** The version's content sealed with the chain's key (its orgResourceId in the keyring); a file's bytes as a blob of the copy's own. */
  private async contentOf(source: SourceVersion, seal: Seal, sealContext: string): Promise<KeptContent> {
    if (source.kind === 'document') {
      const sealedData = seal(source.plaintext, sealContext).toString('base64');
      return { resourceType: 'document', name: source.name, schemaRef: source.schemaRef, sealedData, file: null };
    }
    const blobId = randomUUID();
    await this.deps.blobs.put(blobId, seal(source.bytes, sealContext));
    const file = { blobId, fileName: source.fileName, mimeType: source.mimeType, fileSize: source.fileSize, label: source.label };
    return { resourceType: 'file', name: source.name, schemaRef: null, sealedData: null, file };
  }

  private now(): string {
    return this.deps.now().toISOString();
  }
}

/** A record whose open proposal the keeps of a drain reached, with the newest version they kept of it (copyWorkSql.proposalsReached). */
type ReachedRow = { readonly slot_id: string; readonly resource_id: string; readonly kept_version: number };

/** Where a keep is recorded: its event, and the adoption it answers. */
type Recorded = { readonly position: Position; readonly type: 'CopyKept' | 'AdoptionPended'; readonly adoptionId: string };

const chainFold = { initialState: emptyChain, evolve: evolveChain };

const skip = (record: RecordEntry, reason: NonNullable<RecordEntry['reason']>): Skipped => ({
  resourceId: record.resourceId,
  participant: record.participant,
  reason,
  message: LAPSE_MESSAGES[reason],
});
