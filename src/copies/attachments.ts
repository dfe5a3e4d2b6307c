import { randomUUID } from 'node:crypto';
import { attachmentDecider } from '../commands/attachments/add-attachment.js';
import { isAnyRefusal, isRefusal, type AnyRefusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import { attachmentStream } from '../events/attachment-events.js';
import type { EventContext } from '../events/envelope.js';
import type { BlobStore } from '../files/blob-store.js';
import { sealUpload, type UploadBody } from '../files/sealed-upload.js';
import type { VaultKeyring } from '../vaults/keyring.js';
import { attachmentContext } from './copy-seal.js';
import type { SlotAccess } from './slot-access.js';
import type { RequestId } from '../ids.js';

export type AttachmentDeps = CommandDeps & {
  readonly access: SlotAccess;
  readonly keyring: VaultKeyring;
  readonly blobs: BlobStore;
  /** MAX_FILE_BYTES: the largest attachment. */
  readonly maxBytes: number;
  readonly now: () => Date;
};

/** R-RFIL-02: the organization's own attachments to a request, sealed with its key as the bytes arrive. */
export class OrgAttachments {
  constructor(private readonly deps: AttachmentDeps) {}

  async attach(
    organizationId: string,
    requestId: RequestId,
    meta: { readonly fileName: string; readonly mimeType: string },
    body: UploadBody,
    context: EventContext,
  ): Promise<{ orgFileId: string; orgVersion: number } | AnyRefusal> {
    const owned = await this.deps.access.ownedWarm(organizationId, requestId);
    if (isRefusal(owned)) return owned;
    const orgFileId = randomUUID();
    const upload = await sealUpload(
      body,
      await this.deps.keyring.streamSealer(organizationId, attachmentContext(orgFileId, 1)),
      this.deps.maxBytes,
    );
    if (isAnyRefusal(upload)) return upload;
    const blobId = randomUUID();
    await this.deps.blobs.put(blobId, upload.sealed);
    const command = {
      orgFileId,
      requestId: owned.request_id,
      organizationId,
      orgVersion: 1,
      blobId,
      ...meta,
      fileSize: upload.size,
      addedAt: this.deps.now().toISOString(),
    };
    const added = await handle(
      this.deps,
      attachmentStream(orgFileId),
      attachmentDecider,
      { type: 'AddAttachment', data: command },
      { context, newStream: true },
    );
    if (isRefusal(added)) {
      await this.deps.blobs.delete(blobId);
      return added;
    }
    return { orgFileId, orgVersion: 1 };
  }
}
