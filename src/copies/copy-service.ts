import { randomUUID } from 'node:crypto';
import { correctCopy } from '../commands/copies/correct-copy.js';
import { copyDeleted, keepCopy } from '../commands/copies/keep-copy.js';
import { emptyChain, evolveChain } from '../commands/copies/chain-state.js';
import { hasVersion } from '../commands/version-set.js';
import { pendAdoption } from '../commands/requests/pend-adoption.js';
import { closeKeptProposals } from '../commands/requests/close-proposal.js';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import { readFolded, recallFolded } from '../commands/stream-folds.js';
import type { SqlExecutor } from '../db/sql.js';
import { adoptionIdOf, chainStream, orgResourceIdOf, type ChainEvent, type KeptFile, type Participant } from '../events/copy-events.js';
import { readDecoded, type StreamRef } from '../events/decoder.js';
import type { Position } from '../events/position.js';
import type { EventContext, JsonValue } from '../events/envelope.js';
import { requestStream } from '../events/request-events.js';
import { resourceStream, type ResourceEvent } from '../events/resource-events.js';
import type { Slot } from '../events/manifest-events.js';
import type { BlobStore } from '../files/blob-store.js';
import { sealUpload, type UploadBody } from '../files/sealed-upload.js';
import { attachmentStream } from '../events/attachment-events.js';
import { addAttachment } from '../commands/attachments/add-attachment.js';
import { isUuid } from '../ids.js';
import type { KeyRow, KeyState } from '../organizations/index.js';
import type { RecordEntry, RecordReader } from '../requests/request-records.js';
import type { RequestReads } from '../requests/request-reads.js';
import type { GrantRow, RequestRow } from '../requests/request-queries.js';
import { slotsOf, stateOf } from '../requests/request-view.js';
import type { SchemaValidator } from '../schemas/index.js';
import { unlessErased, type Decrypt, type VaultKeyring } from '../vaults/keyring.js';
import {
  copySql as q,
  copyWorkSql as w,
  orgFileSql as f,
  type AdoptionRow,
  type CopyVersionRow,
  type KeptAnswerRow,
  type OrgFileVersionRow,
} from './copy-queries.js';
import { orgFilesOf, type OrgFile } from './org-files.js';
import { adoptionOf, type Adoption, type Copy } from './copy-view.js';
import { readSourceVersion, type SourceVersion } from './source-version.js';

export type CopyDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly reads: RequestReads;
  readonly records: RecordReader;
  readonly keyring: VaultKeyring;
  readonly blobs: BlobStore;
  readonly validator: SchemaValidator;
  /** Whether the organization's key is warm now (key-warmth.ts), from its columns read with the organization's request (RequestRow). */
  readonly keyStateOf: (row: KeyRow) => KeyState;
  /** MAX_FILE_BYTES: the largest attachment. */
  readonly maxBytes: number;
  readonly now: () => Date;
};

export type Skipped = { readonly resourceId: string; readonly participant: Participant; readonly reason: string; readonly message: string };
export type KeepResult = { readonly adoptions: readonly Adoption[]; readonly skipped: readonly Skipped[] };
export type CorrectInput = {
  readonly sourceResourceId: string | null;
  readonly expectedSourceVersion: number;
  readonly expectedOrgVersion: number;
  readonly data: JsonValue;
};
export type KeptBytes = { readonly fileName: string; readonly mimeType: string; readonly bytes: Buffer };

const SKIP_MESSAGES: Readonly<Record<string, string>> = {
  participant_ineligible: 'the recipient may no longer answer for this party',
  connection_inactive: 'the connection is no longer active',
  source_unavailable: 'the record no longer resolves',
};

const unavailable = { reason: 'source_unavailable', message: SKIP_MESSAGES.source_unavailable! };

/** A slot of a request the organization owns, with where each of its records stands now, and its grants as read. */
type SlotInView = {
  readonly row: RequestRow;
  readonly slot: Slot;
  readonly records: readonly RecordEntry[];
  readonly grants: readonly GrantRow[];
};

/**
 * Keeping copies (R-KEEP-*, R-COPY-*): keep, drain, copies, download, correct. Kept content is
 * sealed with a key of each copy chain's own (its vault id is the chain's orgResourceId), so one
 * copy can be shredded alone (R-ERAS-02), and is only opened while the organization's key is warm.
 */
export class CopyService {
  constructor(private readonly deps: CopyDeps) {}

  async keep(
    organizationId: string,
    requestId: string,
    slotId: string,
    alias: string | null,
    context: EventContext,
  ): Promise<KeepResult | Refusal> {
    const found = await this.slotIn(organizationId, requestId, slotId);
    return isRefusal(found) ? found : this.keepIn(found, this.warm(found.row), alias, context);
  }

  /** The keep of a slot already read: its standing records, or those of one participant. */
  private async keepIn(found: SlotInView, warm: boolean, alias: string | null, context: EventContext): Promise<KeepResult | Refusal> {
    if (!found.slot.verbs.includes('keep')) return refuse('adoption_refused', 'this slot does not allow keeping copies');
    const records = alias === null ? found.records : found.records.filter((r) => r.participant?.alias === alias);
    if (records.length === 0)
      return refuse(
        'adoption_refused',
        alias === null ? 'the slot has no granted record' : 'no granted record of the slot has that participant',
      );

    const adoptions: Adoption[] = [];
    const skipped: Skipped[] = [];
    for (const record of records) {
      if (record.status === 'unavailable' || record.sourceVersion === undefined) {
        const reason = record.reason ?? 'source_unavailable';
        skipped.push({ resourceId: record.resourceId, participant: record.participant, reason, message: SKIP_MESSAGES[reason] ?? reason });
        continue;
      }
      const kept = await this.keepOne(found, record, record.sourceVersion, warm, this.deps.now().toISOString(), context);
      if (isRefusal(kept)) return kept;
      if (kept === null) skipped.push({ resourceId: record.resourceId, participant: record.participant, ...unavailable });
      else adoptions.push(kept);
    }
    if (adoptions.length > 0) return { adoptions, skipped };
    // R-KEEP-05: a keep that took nothing says why.
    return skipped.every((s) => s.reason === 'participant_ineligible')
      ? refuse('participant_ineligible', 'the recipient may no longer answer for any party of these records')
      : refuse('adoption_refused', 'nothing of this slot could be kept');
  }

  /** R-KEEP-10: keeps every pending adoption of the request while the key is warm. */
  async drain(
    organizationId: string,
    requestId: string,
    context: EventContext,
  ): Promise<{ materialized: number; stillPending: number } | Refusal> {
    if (!isUuid(requestId)) return refuse('not_found', 'no such request');
    const [row, adoptions] = await this.withAdoptions(organizationId, requestId);
    if (!row) return refuse('not_found', 'no such request');
    return this.drainPending(row, adoptions, context);
  }

  /** The drain itself, also run by the drain worker for every request of an organization whose key warmed. */
  async drainRequest(
    organizationId: string,
    requestId: string,
    context: EventContext,
  ): Promise<{ materialized: number; stillPending: number }> {
    const [row, adoptions] = await this.withAdoptions(organizationId, requestId);
    if (!row) return { materialized: 0, stillPending: adoptions.filter((a) => a.state === 'pending').length };
    return this.drainPending(row, adoptions, context);
  }

  /** The request and its adoptions in one round trip; the key's warmth comes with the request. */
  private withAdoptions(organizationId: string, requestId: string): Promise<[RequestRow | null, AdoptionRow[]]> {
    return Promise.all([this.deps.reads.oneOfOrganization(organizationId, requestId), this.adoptionRows(requestId)]);
  }

  /** Keeps the pending adoptions among `adoptions`, the request's, if the key is warm. */
  private async drainPending(
    row: RequestRow,
    adoptions: readonly AdoptionRow[],
    context: EventContext,
  ): Promise<{ materialized: number; stillPending: number }> {
    const pending = adoptions.filter((a) => a.state === 'pending');
    if (pending.length === 0 || !this.warm(row)) return { materialized: 0, stillPending: pending.length };
    let materialized = 0;
    for (const a of pending) {
      const slot = slotsOf(row).find((s) => s.slotId === a.slot_id);
      if (!slot) continue;
      const record = { resourceId: a.source_resource_id, participant: (a.participant ?? null) as Participant };
      const kept = await this.keepOne(
        { row, slot, records: [], grants: [] },
        record,
        a.source_version,
        true,
        new Date(a.adopted_at).toISOString(),
        context,
      );
      if (!isRefusal(kept) && kept?.state === 'materialized') materialized++;
    }
    return { materialized, stillPending: pending.length - materialized };
  }

  /** The drain job (R-KEEP-11): every request of the organization with pending keeps, drained while the key is warm. */
  async drainOrganization(organizationId: string, context: EventContext): Promise<number> {
    let materialized = 0;
    for (const { request_id } of (await this.deps.readModels.query<{ request_id: string }>(w.pendingRequestsOf, [organizationId])).rows) {
      materialized += (await this.drainRequest(organizationId, request_id, context)).materialized;
    }
    return materialized;
  }

  /**
   * The automatic keep (R-KEEP-09): the slot's standing records, on an auto slot only. What a
   * manual keep would refuse (nothing standing, no keep verb) is simply not kept.
   */
  async keepAutomatically(requestId: string, slotId: string, context: EventContext): Promise<void> {
    const owner = (await this.deps.readModels.query<{ organization_id: string }>(w.organizationOf, [requestId])).rows[0];
    if (!owner) return;
    const found = await this.slotIn(owner.organization_id, requestId, slotId);
    if (isRefusal(found) || found.slot.adoption !== 'auto') return;
    await this.keepIn(found, this.warm(found.row), null, context);
  }

  /** Where a resource is granted now: the (request, slot) pairs a new version of it may be kept on. */
  async grantsOf(resourceId: string): Promise<{ requestId: string; slotId: string }[]> {
    const rows = (await this.deps.readModels.query<{ request_id: string; slot_id: string }>(w.grantsOfResource, [resourceId])).rows;
    return rows.map((r) => ({ requestId: r.request_id, slotId: r.slot_id }));
  }

  /** Which of these resources are granted on some slot now (one query for a page of new versions). */
  async grantedAmong(resourceIds: readonly string[]): Promise<Set<string>> {
    // A grant's resource id is a uuid: any other id is granted nowhere, and casting it would fail the page for ever.
    const rows = (await this.deps.readModels.query<{ resource_id: string }>(w.grantedAmong, [resourceIds.filter(isUuid)])).rows;
    return new Set(rows.map((r) => r.resource_id));
  }

  /**
   * Proposal adopt (R-PROP-04): keeps exactly the proposed version of one record, warm only.
   * Null when that version can no longer be read. `grants`: the slot's, read by the caller with the proposal.
   */
  async keepProposed(
    row: RequestRow,
    slotId: string,
    resourceId: string,
    version: number,
    grants: readonly GrantRow[],
    context: EventContext,
  ): Promise<Adoption | Refusal | null> {
    const found = await this.viewOf(row, slotId, grants);
    if (isRefusal(found)) return found;
    const record = found.records.find((r) => r.resourceId === resourceId);
    if (!record) return refuse('adoption_refused', 'the resource is no longer granted on this slot');
    // The proposal is closed by its own adopt decision, which tells concurrent adopters apart.
    return this.keepOne(found, record, version, true, this.deps.now().toISOString(), context, false);
  }

  /** R-RFIL-01: the request's organization files, metadata only (so readable with the key cold). */
  async files(organizationId: string, requestId: string): Promise<{ files: OrgFile[] } | Refusal> {
    const row = isUuid(requestId) ? await this.deps.reads.oneOfOrganization(organizationId, requestId.toLowerCase()) : null;
    if (!row) return refuse('not_found', 'no such request');
    const kept = (await this.deps.readModels.query<OrgFileVersionRow>(f.keptFiles, [row.request_id])).rows;
    const attached = (await this.deps.readModels.query<OrgFileVersionRow>(f.attachments, [row.request_id])).rows;
    return { files: orgFilesOf(kept, attached) };
  }

  /** R-RFIL-02: the organization's own attachment, sealed with its key as the bytes arrive. */
  async attach(
    organizationId: string,
    requestId: string,
    meta: { readonly fileName: string; readonly mimeType: string },
    body: UploadBody,
    context: EventContext,
  ): Promise<{ orgFileId: string; orgVersion: number } | Refusal> {
    const owned = await this.ownedWarm(organizationId, requestId);
    if (isRefusal(owned)) return owned;
    const orgFileId = randomUUID();
    const upload = await sealUpload(
      body,
      await this.deps.keyring.streamSealer(organizationId, attachmentContext(orgFileId, 1)),
      this.deps.maxBytes,
    );
    if (isRefusal(upload)) return upload;
    const blobId = randomUUID();
    await this.deps.blobs.put(blobId, upload.sealed);
    const added = await handle(
      this.deps,
      attachmentStream(orgFileId),
      addAttachment,
      {
        orgFileId,
        requestId: owned.request_id,
        organizationId,
        orgVersion: 1,
        blobId,
        ...meta,
        fileSize: upload.size,
        addedAt: this.deps.now().toISOString(),
      },
      { context, newStream: true },
    );
    if (isRefusal(added)) {
      await this.deps.blobs.delete(blobId);
      return added;
    }
    return { orgFileId, orgVersion: 1 };
  }

  /** The request's adoptions, pending ones too, for the request detail. */
  async adoptionsOf(requestId: string): Promise<Adoption[]> {
    return (await this.adoptionRows(requestId)).map(adoptionOf);
  }

  /** R-COPY-02: every materialized adoption with the version it kept and the head of its chain. */
  async copies(organizationId: string, requestId: string): Promise<{ copies: Copy[] } | Refusal> {
    const owned = await this.ownedWarm(organizationId, requestId);
    if (isRefusal(owned)) return owned;
    const versions = (await this.deps.readModels.query<CopyVersionRow>(q.versionsOf, [requestId])).rows;
    const heads = new Map<string, CopyVersionRow>();
    for (const v of versions) heads.set(v.org_resource_id, v);
    const byVersion = new Map(versions.map((v) => [`${v.org_resource_id}/${v.org_version}`, v]));
    const copies: Copy[] = [];
    const decrypt = await this.deps.keyring.openerOf([...heads.keys()]);
    for (const adoption of await this.adoptionsOf(requestId)) {
      if (adoption.state !== 'materialized' || adoption.orgResourceId === undefined || adoption.orgVersion === undefined) continue;
      const kept = byVersion.get(`${adoption.orgResourceId}/${adoption.orgVersion}`);
      const head = heads.get(adoption.orgResourceId);
      if (!kept || !head) continue;
      const file = kept.resource_type === 'file';
      copies.push({
        adoption,
        resourceId: adoption.orgResourceId,
        name: kept.name,
        schemaRef: kept.schema_ref,
        data: file ? fileMeta(kept) : await this.open(kept, decrypt),
        orgVersion: kept.org_version,
        origin: 'copy',
        currentOrgVersion: head.org_version,
        currentOrigin: head.origin,
        ...(file ? {} : { currentData: await this.open(head, decrypt) }),
        participant: adoption.participant,
      });
    }
    return { copies };
  }

  /** R-COPY-05: the bytes of the file version one adoption kept, opened with its chain's key. */
  async download(organizationId: string, requestId: string, adoptionId: string): Promise<KeptBytes | Refusal> {
    const owned = await this.ownedWarm(organizationId, requestId);
    if (isRefusal(owned)) return owned;
    const adoption = isUuid(adoptionId) ? await this.adoptionRow(requestId, adoptionId.toLowerCase()) : null;
    if (!adoption) return refuse('not_found', 'no such adoption');
    if (adoption.resource_type !== 'file')
      return refuse('unsupported_item', 'a document adoption has no bytes to download; read it on the copies route');
    if (adoption.state !== 'materialized') return refuse('adoption_refused', 'this copy is still pending');
    const version = (await this.deps.readModels.query<CopyVersionRow>(q.versionsOf, [requestId])).rows.find(
      (v) => v.org_resource_id === adoption.org_resource_id && v.org_version === adoption.org_version,
    );
    const sealed = version?.blob_id ? await this.deps.blobs.get(version.blob_id) : null;
    if (!version || !sealed) return refuse('not_found', 'no such adoption');
    const bytes = await this.deps.keyring.decrypt(
      version.org_resource_id,
      sealed,
      keptContext(version.org_resource_id, adoption.adoption_id),
    );
    return { fileName: version.file_name ?? 'file', mimeType: version.mime_type ?? 'application/octet-stream', bytes };
  }

  /** R-CORR-01 to R-CORR-05: the organization's own next version of a kept document. */
  async correct(
    organizationId: string,
    requestId: string,
    slotId: string,
    input: CorrectInput,
    context: EventContext,
  ): Promise<{ adoption: Adoption; orgVersion: number } | Refusal> {
    const found = await this.slotIn(organizationId, requestId, slotId);
    if (isRefusal(found)) return found;
    if (!this.warm(found.row)) return sealed();
    if (!found.slot.verbs.includes('keep')) return refuse('adoption_refused', 'this slot does not allow keeping copies');
    const granted = [...new Set(found.records.map((r) => r.resourceId))];
    const sourceResourceId = input.sourceResourceId?.toLowerCase() ?? (granted.length === 1 ? granted[0]! : null);
    if (sourceResourceId === null) return refuse('invalid_request', 'sourceResourceId is required: the slot holds more than one record');
    if (!granted.includes(sourceResourceId)) return refuse('adoption_refused', 'this record has no kept copy to correct');

    const chain = chainStream(requestId, found.slot.slotId, sourceResourceId);
    // The source's newest version is read with the chain, in the same round trip: a version published
    // after this read is not seen, as it was not when the read came after the chain's. A chain this
    // process holds at the head the client read is taken from memory: the correction's append
    // compare-and-sets it, and handle takes any other answer on a read. The checks before it read
    // what every keep of a chain shares (its schema, a document's for good; its orgResourceId).
    const [folded, newestSourceVersion] = await Promise.all([
      recallFolded(this.deps.store, chain, chainFold, (s) => !s.deleted && s.lastKeep !== null && s.head === input.expectedOrgVersion),
      this.newestVersion(sourceResourceId),
    ]);
    const kept = folded.state.lastKeep;
    if (!kept) return refuse('adoption_refused', 'this record has no kept copy to correct');
    if (kept.schemaRef !== null) {
      const result = this.deps.validator.validateWithBuiltin(kept.schemaRef, input.data);
      if (!result.ok)
        return refuse('invalid_request', `data does not match the copy's schema: ${'message' in result ? result.message : ''}`);
    }
    const orgVersion = input.expectedOrgVersion + 1;
    const sealedData = await this.seal(kept.orgResourceId, input.data, correctionContext(kept.orgResourceId, orgVersion));
    const done = await handle(
      this.deps,
      chain,
      correctCopy,
      {
        expectedOrgVersion: input.expectedOrgVersion,
        expectedSourceVersion: input.expectedSourceVersion,
        newestSourceVersion,
        now: this.deps.now(),
        sealedData,
      },
      {
        context,
        known: folded,
        expectedRevision: input.expectedOrgVersion - 1,
        onClash: refuse('version_conflict', 'the copy changed since it was read; re-read the copies'),
      },
    );
    if (isRefusal(done)) return done;
    const adoption = await this.adoptionRow(requestId, kept.adoptionId);
    if (!adoption) throw new Error('a kept adoption is missing from the read model');
    return { adoption: adoptionOf(adoption), orgVersion: done.state.head };
  }

  /**
   * One record's keep of one source version: into its chain when the key is warm, else pended on
   * the request. Null when that version can no longer be read (it was deleted, or its vault erased).
   */
  private async keepOne(
    found: SlotInView,
    record: { readonly resourceId: string; readonly participant: Participant },
    sourceVersion: number,
    warm: boolean,
    adoptedAt: string,
    context: EventContext,
    closesProposals = true,
  ): Promise<Adoption | Refusal | null> {
    const { row, slot } = found;
    const requestId = row.request_id;
    const organizationId = row.organization_id;
    const adoptionId = adoptionIdOf(requestId, slot.slotId, record.resourceId, sourceVersion);
    const chain = chainStream(requestId, slot.slotId, record.resourceId);
    const orgResourceId = orgResourceIdOf(requestId, slot.slotId, record.resourceId);
    // Warm, the version's content and the chain's key are read with the chain, in the same round
    // trips: what they cost when the chain turns out to hold the keep already is the rare case. A
    // chain this process holds is taken from memory when it would keep: the keep's append
    // compare-and-sets it, and a refusal or a keep already there is taken on a read. Cold, the
    // decision to pend is appended to the request, which proves nothing of the chain: it reads.
    const [chainFolded, sourcing] = await Promise.all([
      warm
        ? recallFolded(this.deps.store, chain, chainFold, (s) => !s.deleted && !hasVersion(s.keeps, sourceVersion))
        : readFolded(this.deps.store, chain, chainFold),
      warm
        ? Promise.all([
            readSourceVersion(this.deps, record.resourceId, sourceVersion, vaultOf(found.grants, record.resourceId)),
            unlessErased(this.deps.keyring.sealer(orgResourceId)),
          ])
        : null,
    ]);
    if (chainFolded.state.deleted) return copyDeleted();
    /** The event this call wrote to record the keep, when it wrote one: nothing to look up afterwards. */
    let written: Recorded | null = null;
    if (!hasVersion(chainFolded.state.keeps, sourceVersion)) {
      const resourceType = slot.kind === 'file' ? ('file' as const) : ('document' as const);
      const base = { requestId, organizationId, adoptionId, slotId: slot.slotId, sourceResourceId: record.resourceId, sourceVersion };
      if (!sourcing) {
        const pended = await handle(
          this.deps,
          requestStream(requestId),
          pendAdoption,
          { ...base, resourceType, participant: record.participant, adoptedAt },
          { context },
        );
        if (isRefusal(pended)) return pended;
        if (pended.position) written = { position: pended.position, type: 'AdoptionPended', adoptionId };
      } else {
        const [source, seal] = sourcing;
        // A chain whose key is erased is being deleted (R-ERAS-02 erases the key before it records the deletion).
        if (!seal) return copyDeleted();
        if (!source) return null;
        const context_ = keptContext(orgResourceId, adoptionId);
        const content =
          source.kind === 'document'
            ? { sealedData: seal(source.plaintext, context_).toString('base64'), file: null, schemaRef: source.schemaRef }
            : { sealedData: null, file: await this.storeFile(source, seal(source.bytes, context_)), schemaRef: null };
        const kept = await handle(
          this.deps,
          chain,
          keepCopy,
          {
            ...base,
            orgResourceId,
            resourceType: source.kind,
            participant: record.participant,
            adoptedAt,
            now: this.deps.now(),
            name: source.name,
            ...content,
          },
          { context, retries: 20, known: chainFolded },
        );
        if (isRefusal(kept)) return kept;
        if (kept.position) written = { position: kept.position, type: 'CopyKept', adoptionId };
        else if (content.file) await this.deps.blobs.delete(content.file.blobId);
      }
    }
    const recorded = written ?? (await this.recorded(requestId, chain, sourceVersion, adoptionId));
    // Read models are read once they hold the keep's event, and every proposal opened before it.
    if (recorded) await this.deps.waitFor(recorded.position, closesProposals ? [recorded.type, 'ProposalOpened'] : [recorded.type]);
    const { adoption, reached } = closesProposals
      ? await this.keptAnswer(requestId, recorded?.adoptionId ?? null, slot.slotId, record.resourceId, sourceVersion)
      : { adoption: recorded ? await this.adoptionRow(requestId, recorded.adoptionId) : null, reached: false };
    if (reached) {
      const closing = await this.closeKept(requestId, slot.slotId, record.resourceId, sourceVersion, context);
      if (closing) return closing;
    }
    return adoption ? adoptionOf(adoption) : null;
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
  ): Promise<{ adoption: AdoptionRow | null; reached: boolean }> {
    const params = [requestId.toLowerCase(), adoptionId, slotId, resourceId, keptVersion];
    const { reaches_open_proposal: reached, ...row } = (await this.deps.readModels.query<KeptAnswerRow>(q.keptAnswer, params)).rows[0]!;
    return { adoption: row.adoption_id === null ? null : (row as AdoptionRow), reached };
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
      closeKeptProposals,
      { now: this.deps.now(), slotId, resourceId, keptVersion },
      { context },
    );
    return isRefusal(closing) ? closing : null;
  }

  /** The newest version of the record kept or pended on the slot (0 when none); given `after`, once the read models hold it. */
  async newestAdopted(requestId: string, slotId: string, resourceId: string, after: Position | null = null): Promise<number> {
    if (after) await this.deps.waitFor(after, ['CopyKept', 'AdoptionPended']);
    const row = (await this.deps.readModels.query<{ version: number | null }>(w.newestAdopted, [requestId, slotId, resourceId])).rows[0];
    return row?.version ?? 0;
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

  /** The bytes, sealed with the chain's key (its orgResourceId in the keyring), as a blob of the copy's own. */
  private async storeFile(source: Extract<SourceVersion, { kind: 'file' }>, sealed: Buffer): Promise<KeptFile> {
    const blobId = randomUUID();
    await this.deps.blobs.put(blobId, sealed);
    return { blobId, fileName: source.fileName, mimeType: source.mimeType, fileSize: source.fileSize, label: source.label };
  }

  private async slotIn(organizationId: string, requestId: string, slotId: string): Promise<SlotInView | Refusal> {
    if (!isUuid(requestId)) return refuse('not_found', 'no such request');
    const [id, slotIdLower] = [requestId.toLowerCase(), slotId.toLowerCase()];
    // The slot's grants are read with the request, in the same round trip; they are used only if the organization owns it.
    const [row, grants] = await Promise.all([
      this.deps.reads.oneOfOrganization(organizationId, id),
      isUuid(slotIdLower) ? this.deps.reads.grantsOfSlot(id, slotIdLower) : [],
    ]);
    if (!row) return refuse('not_found', 'no such request');
    return this.viewOf(row, slotIdLower, grants);
  }

  /** A slot of `row`, a request the organization owns, with where each of its granted records stands now. */
  private async viewOf(row: RequestRow, slotId: string, grants: readonly GrantRow[]): Promise<SlotInView | Refusal> {
    const slot = slotsOf(row).find((s) => s.slotId === slotId);
    if (!slot) return refuse('not_found', 'no such slot in the manifest version this request pins');
    const standing = await this.deps.records.standing(row, grants);
    return { row, slot, records: this.deps.records.records(row, stateOf(row, this.deps.now()), slot, grants, standing), grants };
  }

  /** R-KEEP-10: whether the organization's key is warm, from its columns read with the request. */
  private warm(row: RequestRow): boolean {
    return this.deps.keyStateOf(row).state === 'warm';
  }

  private async ownedWarm(organizationId: string, requestId: string): Promise<RequestRow | Refusal> {
    const row = isUuid(requestId) ? await this.deps.reads.oneOfOrganization(organizationId, requestId.toLowerCase()) : null;
    if (!row) return refuse('not_found', 'no such request');
    if (!this.warm(row)) return sealed();
    return row;
  }

  private async adoptionRows(requestId: string): Promise<AdoptionRow[]> {
    return (await this.deps.readModels.query<AdoptionRow>(q.adoptionsOf, [requestId.toLowerCase()])).rows;
  }

  private async adoptionRow(requestId: string, adoptionId: string): Promise<AdoptionRow | null> {
    return (await this.deps.readModels.query<AdoptionRow>(q.adoptionOf, [requestId.toLowerCase(), adoptionId])).rows[0] ?? null;
  }

  /** A copy version's data, opened with its chain's key. */
  private async open(version: CopyVersionRow, decrypt: Decrypt): Promise<JsonValue> {
    if (version.sealed_data === null) return null;
    const context =
      version.origin === 'copy' && version.adoption_id !== null
        ? keptContext(version.org_resource_id, version.adoption_id)
        : correctionContext(version.org_resource_id, version.org_version);
    const plaintext = await decrypt(version.org_resource_id, Buffer.from(version.sealed_data, 'base64'), context);
    return JSON.parse(plaintext.toString('utf8')) as JsonValue;
  }

  private async seal(orgResourceId: string, data: JsonValue, context: string): Promise<string> {
    return (await this.deps.keyring.encrypt(orgResourceId, Buffer.from(JSON.stringify(data)), context)).toString('base64');
  }

  /** The newest version the person has published of a record, deleted or not (0 when none). */
  private async newestVersion(resourceId: string): Promise<number> {
    return (await readFolded(this.deps.store, resourceStream(resourceId), newestVersionFold)).state;
  }
}

/** Where a keep is recorded: its event, and the adoption it answers. */
type Recorded = { readonly position: Position; readonly type: 'CopyKept' | 'AdoptionPended'; readonly adoptionId: string };

const chainFold = { initialState: emptyChain, evolve: evolveChain };
const newestVersionFold = {
  initialState: 0,
  evolve: (newest: number, e: ResourceEvent): number => (e.type === 'DocumentDeleted' ? newest : Math.max(newest, e.data.version)),
};

/** The vault holding a granted resource, as the grant was read: its key is then read with the resource's stream. */
const vaultOf = (grants: readonly GrantRow[], resourceId: string): string | null =>
  grants.find((g) => g.resource_id === resourceId)?.vault_id ?? null;

const sealed = (): Refusal => refuse('org_sealed', 'the organization key is cold: a member must sign in first');

/** A kept version's seal is bound to its copy and adoption: moved anywhere else it does not open. */
const keptContext = (orgResourceId: string, adoptionId: string): string => `copy:${orgResourceId}/${adoptionId}`;
const correctionContext = (orgResourceId: string, orgVersion: number): string => `copy:${orgResourceId}/v${orgVersion}`;
const attachmentContext = (orgFileId: string, orgVersion: number): string => `attachment:${orgFileId}/v${orgVersion}`;

function fileMeta(version: CopyVersionRow): JsonValue {
  return { label: version.label, fileName: version.file_name, mimeType: version.mime_type, fileSize: Number(version.file_size) };
}
