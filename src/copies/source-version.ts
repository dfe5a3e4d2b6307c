import { documentSealContext } from '../documents/document-service.js';
import { readDecoded } from '../events/decoder.js';
import type { EventStore } from '../events/store.js';
import { resourceStream, type ResourceEvent } from '../events/resource-events.js';
import type { BlobStore } from '../files/blob-store.js';
import { fileSealContext } from '../files/file-service.js';
import { unlessErased, type VaultKeyring } from '../vaults/keyring.js';

/** One version of a person's (or entity's) record, opened with its vault's key to be kept. */
export type SourceVersion =
  | { readonly kind: 'document'; readonly name: string; readonly schemaRef: string | null; readonly plaintext: Buffer }
  | {
      readonly kind: 'file';
      readonly name: string;
      readonly fileName: string;
      readonly mimeType: string;
      readonly fileSize: number;
      readonly label: string | null;
      readonly bytes: Buffer;
    };

export type SourceDeps = { readonly store: Pick<EventStore, 'readStream'>; readonly keyring: VaultKeyring; readonly blobs: BlobStore };

/**
 * Reads version `version` of a resource from its own stream (the read models hold only the newest
 * one), in the vault key's context. Null when that version does not exist (any more), or its
 * vault's key was erased: nothing can be kept of it. A caller that knows the resource's vault
 * from a read model (`vaultHint`) has its key read alongside the stream, in the same round trip;
 * the vault the version's event names is the one that opens it all the same.
 */
export async function readSourceVersion(
  deps: SourceDeps,
  resourceId: string,
  version: number,
  vaultHint: string | null = null,
): Promise<SourceVersion | null> {
  const hinted = vaultHint === null ? null : deps.keyring.opener(vaultHint);
  // Unused when the version is gone or lives elsewhere: its failure (an erased key) is then no one's.
  hinted?.catch(() => undefined);
  const decrypt = async (vaultId: string, sealed: Buffer, context: string): Promise<Buffer> =>
    hinted && vaultId === vaultHint ? (await hinted)(sealed, context) : deps.keyring.decrypt(vaultId, sealed, context);
  const events = await readDecoded(deps.store, resourceStream(resourceId));
  const at = events.find((e) => versionOf(e) === version);
  if (!at || events.some((e) => e.type === 'DocumentDeleted')) return null;
  switch (at.type) {
    case 'DocumentCreated':
    case 'DocumentUpdated': {
      const created = events.find((e) => e.type === 'DocumentCreated');
      const schemaRef = created?.type === 'DocumentCreated' ? created.data.schemaRef : null;
      const sealed = Buffer.from(at.data.sealedData, 'base64');
      const plaintext = await unlessErased(decrypt(at.data.vaultId, sealed, documentSealContext(resourceId, version)));
      if (!plaintext) return null;
      return { kind: 'document', name: at.data.name, schemaRef, plaintext };
    }
    case 'FileUploaded':
    case 'FileVersionAdded': {
      const sealed = await deps.blobs.get(at.data.blobId);
      if (!sealed) return null;
      const bytes = await unlessErased(decrypt(at.data.vaultId, sealed, fileSealContext(resourceId, version)));
      if (!bytes) return null;
      const label = events[0]?.type === 'FileUploaded' ? events[0].data.label : at.data.label;
      const { fileName, mimeType, fileSize } = at.data;
      return { kind: 'file', name: label ?? fileName, fileName, mimeType, fileSize, label, bytes };
    }
    default:
      return null;
  }
}

function versionOf(event: ResourceEvent): number | null {
  return event.type === 'DocumentDeleted' ? null : event.data.version;
}
