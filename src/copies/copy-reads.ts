import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import type { SqlExecutor } from '../db/sql.js';
import type { BlobStore } from '../files/blob-store.js';
import type { AdoptionId, RequestId } from '../ids.js';
import type { RequestReads } from '../requests/request-reads.js';
import type { SchemaValidator } from '../schemas/index.js';
import type { VaultKeyring } from '../vaults/keyring.js';
import { copySql as q, orgFileSql as f, type AdoptionRow, type CopyVersionRow, type OrgFileVersionRow } from './copy-queries.js';
import { fileMeta, keptContext, openVersion } from './copy-seal.js';
import { adoptionOf, type Adoption, type Copy } from './copy-view.js';
import { orgFilesOf, type OrgFile } from './org-files.js';
import type { SlotAccess } from './slot-access.js';

export type CopyReadDeps = {
  readonly readModels: SqlExecutor;
  readonly reads: RequestReads;
  readonly access: SlotAccess;
  readonly keyring: VaultKeyring;
  readonly blobs: BlobStore;
  /** Shows a kept built-in id by the current base's URL (contract §10.13). */
  readonly validator: Pick<SchemaValidator, 'canonicalRef'>;
};

export type KeptBytes = { readonly fileName: string; readonly mimeType: string; readonly bytes: Buffer };

/** What the organization holds (R-COPY-*, R-RFIL-01): its copies, opened only while its key is warm, and its files' metadata. */
export class CopyReads {
  constructor(private readonly deps: CopyReadDeps) {}

  /** The request's adoptions, pending ones too, for the request detail. */
  async adoptionsOf(requestId: string): Promise<Adoption[]> {
    return (await this.deps.readModels.query<AdoptionRow>(q.adoptionsOf, [requestId])).rows.map(adoptionOf);
  }

  /** R-COPY-02: every materialized adoption with the version it kept and the head of its chain. */
  async copies(organizationId: string, requestId: RequestId): Promise<{ copies: Copy[] } | Refusal> {
    const owned = await this.deps.access.ownedWarm(organizationId, requestId);
    if (isRefusal(owned)) return owned;
    const versions = (await this.deps.readModels.query<CopyVersionRow>(q.versionsOf, [owned.request_id])).rows;
    const heads = new Map<string, CopyVersionRow>();
    for (const v of versions) heads.set(v.org_resource_id, v);
    const byVersion = new Map(versions.map((v) => [`${v.org_resource_id}/${v.org_version}`, v]));
    const copies: Copy[] = [];
    const decrypt = await this.deps.keyring.openerOf([...heads.keys()]);
    for (const adoption of await this.adoptionsOf(owned.request_id)) {
      if (adoption.state !== 'materialized' || adoption.orgResourceId === undefined || adoption.orgVersion === undefined) continue;
      const kept = byVersion.get(`${adoption.orgResourceId}/${adoption.orgVersion}`);
      const head = heads.get(adoption.orgResourceId);
      if (!kept || !head) continue;
      const file = kept.resource_type === 'file';
      copies.push({
        adoption,
        resourceId: adoption.orgResourceId,
        name: kept.name,
        schemaRef: kept.schema_ref === null ? null : this.deps.validator.canonicalRef(kept.schema_ref),
        data: file ? fileMeta(kept) : await openVersion(kept, decrypt),
        orgVersion: kept.org_version,
        origin: 'copy',
        currentOrgVersion: head.org_version,
        currentOrigin: head.origin,
        ...(file ? {} : { currentData: await openVersion(head, decrypt) }),
        participant: adoption.participant,
      });
    }
    return { copies };
  }

  /** R-COPY-05: the bytes of the file version one adoption kept, opened with its chain's key. */
  async download(organizationId: string, requestId: RequestId, adoptionId: AdoptionId): Promise<KeptBytes | Refusal> {
    const owned = await this.deps.access.ownedWarm(organizationId, requestId);
    if (isRefusal(owned)) return owned;
    const row = (await this.deps.readModels.query<AdoptionRow>(q.adoptionOf, [owned.request_id, adoptionId])).rows[0];
    if (!row) return refuse('not_found', 'no such adoption');
    if (row.resource_type !== 'file')
      return refuse('unsupported_item', 'a document adoption has no bytes to download; read it on the copies route');
    if (row.state !== 'materialized') return refuse('adoption_refused', 'this copy is still pending');
    const version = (await this.deps.readModels.query<CopyVersionRow>(q.versionsOf, [owned.request_id])).rows.find(
      (v) => v.org_resource_id === row.org_resource_id && v.org_version === row.org_version,
    );
    const sealedBytes = version?.blob_id ? await this.deps.blobs.get(version.blob_id) : null;
    if (!version || !sealedBytes) return refuse('not_found', 'no such adoption');
    const bytes = await this.deps.keyring.decrypt(
      version.org_resource_id,
      sealedBytes,
      keptContext(version.org_resource_id, row.adoption_id),
    );
    return { fileName: version.file_name ?? 'file', mimeType: version.mime_type ?? 'application/octet-stream', bytes };
  }

  /** R-RFIL-01: the request's organization files, metadata only (so readable with the key cold). */
  async files(organizationId: string, requestId: RequestId): Promise<{ files: OrgFile[] } | Refusal> {
    const row = await this.deps.reads.owned(organizationId, requestId);
    if (isRefusal(row)) return row;
    const kept = (await this.deps.readModels.query<OrgFileVersionRow>(f.keptFiles, [row.request_id])).rows;
    const attached = (await this.deps.readModels.query<OrgFileVersionRow>(f.attachments, [row.request_id])).rows;
    return { files: orgFilesOf(kept, attached) };
  }
}
