import { randomUUID } from 'node:crypto';
import type { Caller } from '../identity/identity-service.js';
import { isUuid } from '../ids.js';
import { fileDecider } from '../commands/files/file-decider.js';
import type { LiveFile } from '../commands/files/file-state.js';
import { changeable as changeableResource, type ResourceAccess } from '../commands/resource-access.js';
import { isAnyRefusal, isRefusal, refuse, type AnyRefusal, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import { readFolded } from '../commands/stream-folds.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EventContext } from '../events/envelope.js';
import { resourceStream } from '../events/resource-events.js';
import { unlessErased, type VaultKeyring } from '../vaults/keyring.js';
import type { VaultAccess } from '../vaults/vault-access.js';
import type { BlobStore } from './blob-store.js';
import { fileSql as q, type FileRow, type FileVersionListRow, type FileVersionRow } from './file-queries.js';
import { sealUpload, type SealedUpload, type UploadBody } from './sealed-upload.js';

/** What each version keeps beside its bytes (validated at the edge). */
export type FileMeta = { readonly fileName: string; readonly mimeType: string };

export type NewFile = FileMeta & {
  readonly label: string | null;
  /** A legal entity the caller manages; its vault holds the file. */
  readonly owner: string | null;
};

export type FileRef = { readonly fileId: string; readonly version: number };

export type FileContent = FileMeta & { readonly version: number; readonly bytes: Buffer };

/** A file as the caller's list shows it: what each version keeps beside its bytes, never the bytes. */
export type FileView = {
  readonly id: string;
  readonly label: string | null;
  /** The legal entity whose vault holds it; null for the caller's own vault. */
  readonly owner: string | null;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly versions: readonly (FileMeta & { readonly version: number; readonly fileSize: number; readonly uploadedAt: string })[];
};

export type FileDeps = CommandDeps & {
  readonly keyring: VaultKeyring;
  readonly blobs: BlobStore;
  readonly readModels: SqlExecutor;
  readonly access: VaultAccess;
  /** MAX_FILE_BYTES. */
  readonly maxBytes: number;
};

/** Bounds re-sealing when concurrent uploads keep taking the next version number. */
const VERSION_ATTEMPTS = 4;

/** Files: upload, new version, download (R-FILE-01 to R-FILE-06). Bytes are sealed with the vault's key. */
export class FileService {
  constructor(private readonly deps: FileDeps) {}

  async upload(caller: Caller, input: NewFile, body: UploadBody, context: EventContext): Promise<FileRef | AnyRefusal> {
    if (input.owner !== null && !isUuid(input.owner)) return notFound();
    const vaultId = await this.deps.access.writableVault(caller, input.owner);
    if (isRefusal(vaultId)) return vaultId;
    const fileId = randomUUID();
    const upload = await this.seal(vaultId, fileId, 1, body);
    if (isAnyRefusal(upload)) return upload;

    const blobId = await this.store(upload);
    const uploaded = await handle(
      this.deps,
      resourceStream(fileId),
      fileDecider,
      {
        type: 'UploadFile',
        data: {
          resourceId: fileId,
          vaultId,
          blobId,
          fileName: input.fileName,
          mimeType: input.mimeType,
          fileSize: upload.size,
          label: input.label,
        },
      },
      { context, newStream: true },
    );
    if (isRefusal(uploaded)) return this.discard(blobId, uploaded);
    return { fileId, version: 1 };
  }

  /** Version n+1. The file is found (or not) before a byte of the body is read. */
  async addVersion(caller: Caller, fileId: string, meta: FileMeta, body: UploadBody, context: EventContext): Promise<FileRef | AnyRefusal> {
    let found = await this.changeable(caller, fileId);
    if (isRefusal(found)) return found;
    let version = found.file.version + 1;
    let upload = await this.seal(found.file.vaultId, fileId, version, body);
    for (let attempt = 1; ; attempt++) {
      if (isAnyRefusal(upload)) return upload;
      const blobId = await this.store(upload);
      const added = await handle(
        this.deps,
        resourceStream(fileId),
        fileDecider,
        {
          type: 'AddFileVersion',
          data: { resourceId: fileId, ...found.access, version, blobId, ...meta, fileSize: upload.size },
        },
        { context },
      );
      if (!isRefusal(added)) return { fileId, version };
      await this.deps.blobs.delete(blobId);
      if (added.code !== 'conflict' || attempt >= VERSION_ATTEMPTS) return added;

      // Another version took this number: the bytes were sealed for it, so seal them for the next.
      const sealedFor = version;
      found = await this.changeable(caller, fileId);
      if (isRefusal(found)) return found;
      version = found.file.version + 1;
      upload = await this.reseal(found.file.vaultId, fileId, upload, sealedFor, version);
    }
  }

  /**
   * The bytes of one version (the newest when `version` is null). An unknown, malformed or
   * foreign id, a missing version and a vault whose key was erased all answer the same not_found.
   */
  async download(caller: Caller, fileId: string, version: number | null): Promise<FileContent | Refusal> {
    if (!isUuid(fileId)) return notFound();
    const row = (await this.deps.readModels.query<FileVersionRow>(q.version, [fileId, version])).rows[0];
    if (!row || !(await this.deps.access.canRead(caller, row.vault_id))) return notFound();
    const sealed = await this.deps.blobs.get(row.blob_id);
    if (!sealed) return notFound();
    const bytes = await unlessErasedFile(this.deps.keyring.decrypt(row.vault_id, sealed, fileSealContext(fileId, row.version)));
    if (isRefusal(bytes)) return bytes;
    return { fileName: row.file_name, mimeType: row.mime_type, version: row.version, bytes };
  }

  /**
   * Every file of every vault the caller may read, newest first, each with its versions oldest
   * first: two queries whatever their number. (A vault whose key was erased belongs to a person
   * who can no longer call.)
   */
  async list(caller: Caller): Promise<FileView[]> {
    const vaults = await this.deps.access.readableVaults(caller);
    const files = (await this.deps.readModels.query<FileRow>(q.ofVaults, [vaults])).rows;
    if (files.length === 0) return [];
    const versions = (await this.deps.readModels.query<FileVersionListRow>(q.versionsOf, [files.map((f) => f.resource_id)])).rows;
    const iso = (t: Date | string) => new Date(t).toISOString();
    const versionsOf = new Map<string, FileView['versions'][number][]>();
    for (const v of versions) {
      const list = versionsOf.get(v.resource_id) ?? [];
      list.push({
        version: v.version,
        fileName: v.file_name,
        mimeType: v.mime_type,
        fileSize: v.file_size,
        uploadedAt: iso(v.uploaded_at),
      });
      versionsOf.set(v.resource_id, list);
    }
    return files.map((f) => ({
      id: f.resource_id,
      label: f.label,
      owner: f.vault_id === caller.identityId ? null : f.vault_id,
      version: f.version,
      createdAt: iso(f.created_at),
      updatedAt: iso(f.updated_at),
      versions: versionsOf.get(f.resource_id) ?? [],
    }));
  }

  /**
   * The live file and what its decision is told of the caller, when the caller may add to it. One the
   * caller cannot read is not_found, whatever the reason, as an unknown id. One they can read but not
   * change (a MEMBER's view of an entity's file) is refused by the decision's own rule (changeable),
   * asked here before a byte of the body is read: the decision itself can only run once the bytes are
   * sealed and stored.
   */
  private async changeable(caller: Caller, fileId: string): Promise<{ file: LiveFile; access: ResourceAccess } | Refusal> {
    if (!isUuid(fileId)) return notFound();
    // Folded as the file's decider folds it: only what this process has not seen yet is read.
    const { state } = await readFolded(this.deps.store, resourceStream(fileId), fileDecider);
    if (state.status !== 'live') return notFound();
    const mayChange = await this.deps.access.canWrite(caller, state.vaultId);
    if (!mayChange && !(await this.deps.access.canRead(caller, state.vaultId))) return notFound();
    const access = { vaultId: state.vaultId, mayChange };
    const file = changeableResource(state, access, 'file');
    return isRefusal(file) ? file : { file, access };
  }

  private async seal(vaultId: string, fileId: string, version: number, body: UploadBody): Promise<SealedUpload | AnyRefusal> {
    const sealer = await unlessErasedFile(this.deps.keyring.streamSealer(vaultId, fileSealContext(fileId, version)));
    if (isRefusal(sealer)) return sealer;
    return sealUpload(body, sealer, this.deps.maxBytes);
  }

  private async reseal(
    vaultId: string,
    fileId: string,
    upload: SealedUpload,
    from: number,
    to: number,
  ): Promise<SealedUpload | AnyRefusal> {
    const { keyring } = this.deps;
    const opened = await unlessErasedFile(keyring.decrypt(vaultId, upload.sealed, fileSealContext(fileId, from)));
    if (isRefusal(opened)) return opened;
    const sealed = await unlessErasedFile(keyring.encrypt(vaultId, opened, fileSealContext(fileId, to)));
    return isRefusal(sealed) ? sealed : { sealed, size: upload.size };
  }

  private async store(upload: SealedUpload): Promise<string> {
    const blobId = randomUUID();
    await this.deps.blobs.put(blobId, upload.sealed);
    return blobId;
  }

  /** A refused append wrote no event, so nothing names the blob. */
  private async discard(blobId: string, refusal: Refusal): Promise<Refusal> {
    await this.deps.blobs.delete(blobId);
    return refusal;
  }
}

const notFound = (): Refusal => refuse('not_found', 'no such file');

/** A vault whose key was erased holds nothing any more: its files neither open nor take versions. */
async function unlessErasedFile<T>(use: Promise<T>): Promise<T | Refusal> {
  return (await unlessErased(use)) ?? notFound();
}

/** Binds sealed bytes to their file and version (the keyring adds the vault). */
export const fileSealContext = (fileId: string, version: number): string => `file:${fileId}/v${version}`;
