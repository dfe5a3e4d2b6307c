import { documentSealContext } from '../documents/document-service.js';
import { readDecoded } from '../events/decoder.js';
import type { JsonValue } from '../events/envelope.js';
import type { EventStore } from '../events/store.js';
import { resourceStream } from '../events/resource-events.js';
import type { BlobStore } from '../files/blob-store.js';
import { fileSealContext } from '../files/file-service.js';
import { VaultKeyErasedError, type VaultKeyring } from '../vaults/keyring.js';

export type ResourceDeps = { readonly store: Pick<EventStore, 'readStream'>; readonly keyring: VaultKeyring; readonly blobs: BlobStore };

export type DocumentVersion = {
  readonly version: number;
  readonly name: string;
  readonly description: string | null;
  readonly data: JsonValue;
  readonly at: string;
};
export type FileVersion = {
  readonly version: number;
  readonly fileName: string;
  readonly mimeType: string;
  readonly fileSize: number;
  /** The bytes as the person uploaded them, base64. */
  readonly content: string;
  readonly at: string;
};

export type ExportedResource =
  | {
      readonly kind: 'document';
      readonly id: string;
      readonly schemaRef: string | null;
      readonly deleted: boolean;
      readonly versions: DocumentVersion[];
    }
  | { readonly kind: 'file'; readonly id: string; readonly label: string | null; readonly versions: FileVersion[] };

/**
 * Every version of one of the person's records, opened from its own stream (the read models hold
 * only the newest): what GDPR Art. 15 and 20 give the person. A deleted document is exported too,
 * marked, since its versions are still held sealed in the log. Null when the vault's key is gone.
 */
export async function exportResource(deps: ResourceDeps, resourceId: string): Promise<ExportedResource | null> {
  const events = await readDecoded(deps.store, resourceStream(resourceId));
  try {
    const first = events[0];
    if (first?.type === 'DocumentCreated') {
      const open = await deps.keyring.opener(first.data.vaultId);
      const versions = events.flatMap((e): DocumentVersion[] =>
        e.type === 'DocumentCreated' || e.type === 'DocumentUpdated'
          ? [
              {
                version: e.data.version,
                name: e.data.name,
                description: e.data.description,
                data: JSON.parse(
                  open(Buffer.from(e.data.sealedData, 'base64'), documentSealContext(resourceId, e.data.version)).toString('utf8'),
                ) as JsonValue,
                at: occurredAt(e),
              },
            ]
          : [],
      );
      const deleted = events.some((e) => e.type === 'DocumentDeleted');
      return { kind: 'document', id: resourceId, schemaRef: first.data.schemaRef, deleted, versions };
    }
    if (first?.type === 'FileUploaded') {
      const versions: FileVersion[] = [];
      for (const e of events) {
        if (e.type !== 'FileUploaded' && e.type !== 'FileVersionAdded') continue;
        const sealed = await deps.blobs.get(e.data.blobId);
        if (!sealed) continue;
        const bytes = await deps.keyring.decrypt(e.data.vaultId, sealed, fileSealContext(resourceId, e.data.version));
        const { version, fileName, mimeType, fileSize } = e.data;
        versions.push({ version, fileName, mimeType, fileSize, content: bytes.toString('base64'), at: occurredAt(e) });
      }
      return { kind: 'file', id: resourceId, label: first.data.label, versions };
    }
    return null;
  } catch (e) {
    if (e instanceof VaultKeyErasedError) return null;
    throw e;
  }
}

const occurredAt = (e: { readonly metadata: { readonly occurredAt: string } }): string => new Date(e.metadata.occurredAt).toISOString();
