import { documentSealContext } from '../documents/document-service.js';
import { readDecoded, type Recorded } from '../events/decoder.js';
import type { JsonValue } from '../events/envelope.js';
import type { EventStore } from '../events/store.js';
import { resourceStream, type ResourceEvent } from '../events/resource-events.js';
import type { BlobStore } from '../files/blob-store.js';
import { fileSealContext } from '../files/file-service.js';
import { SEALED_HEAD_BYTES, type StreamOpener } from '../vaults/envelope-crypto.js';
import { unlessErased, type VaultKeyring } from '../vaults/keyring.js';
import { Base64Text } from './json-text.js';

export type ResourceDeps = {
  readonly store: Pick<EventStore, 'readStream'>;
  readonly keyring: Pick<VaultKeyring, 'opener' | 'streamOpener'>;
  readonly blobs: Pick<BlobStore, 'size' | 'slice'>;
};

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
  readonly content: Base64Text;
  readonly at: string;
};

/** Versions are read and opened while the line is written, one at a time (R-EXP-03). */
export type ExportedResource =
  | {
      readonly kind: 'document';
      readonly id: string;
      readonly schemaRef: string | null;
      readonly deleted: boolean;
      readonly versions: AsyncIterable<DocumentVersion>;
    }
  | { readonly kind: 'file'; readonly id: string; readonly label: string | null; readonly versions: AsyncIterable<FileVersion> };

/** One of the person's records as the read models list it: `deleted` for a document deleted since. */
export type OwnResource = { readonly resourceId: string; readonly deleted: boolean };

/** Events read from a record's stream at once: a document's hold up to 1 MiB of sealed data each. */
const EVENTS_PER_READ = 16;
/**
 * Sealed file bytes read, opened and encoded at once (R-EXP-03). Small enough that every string
 * made of a slice (the driver's hex, the base64) stays under V8's large-object size (128 KiB): such
 * garbage dies in the next scavenge instead of piling up until a full collection.
 */
const BLOB_SLICE_BYTES = 48 * 1024;

/**
 * Every version of one of the person's records, opened from its own stream (the read models hold
 * only the newest): what GDPR Art. 15 and 20 give the person. A deleted document is exported too,
 * marked, since its versions are still held sealed in the log. Null when the vault's key is gone.
 * R-EXP-03: only the record's first event and its key are read here; its versions, and a file's
 * bytes slice by slice, are read as the archive is written, so no record is ever held whole.
 */
export async function exportResource(deps: ResourceDeps, own: OwnResource): Promise<ExportedResource | null> {
  const { resourceId } = own;
  const [first] = await readDecoded(deps.store, resourceStream(resourceId), 0, 1);
  if (first?.type === 'DocumentCreated') {
    const open = await unlessErased(deps.keyring.opener(first.data.vaultId));
    if (!open) return null;
    const versions = async function* (): AsyncGenerator<DocumentVersion> {
      for await (const e of eventsOf(deps, resourceId)) {
        if (e.type !== 'DocumentCreated' && e.type !== 'DocumentUpdated') continue;
        const sealed = Buffer.from(e.data.sealedData, 'base64');
        const data = JSON.parse(open(sealed, documentSealContext(resourceId, e.data.version)).toString('utf8')) as JsonValue;
        yield { version: e.data.version, name: e.data.name, description: e.data.description, data, at: occurredAt(e) };
      }
    };
    return { kind: 'document', id: resourceId, schemaRef: first.data.schemaRef, deleted: own.deleted, versions: versions() };
  }
  if (first?.type === 'FileUploaded') {
    const opener = await unlessErased(deps.keyring.streamOpener(first.data.vaultId));
    if (!opener) return null;
    const versions = async function* (): AsyncGenerator<FileVersion> {
      for await (const e of eventsOf(deps, resourceId)) {
        if (e.type !== 'FileUploaded' && e.type !== 'FileVersionAdded') continue;
        const size = await deps.blobs.size(e.data.blobId);
        if (size === null) continue;
        const { version, fileName, mimeType, fileSize, blobId } = e.data;
        const open = (head: Uint8Array) => opener(head, fileSealContext(resourceId, version));
        const content = new Base64Text(openedSlices(deps.blobs, blobId, size, open));
        yield { version, fileName, mimeType, fileSize, content, at: occurredAt(e) };
      }
    };
    return { kind: 'file', id: resourceId, label: first.data.label, versions: versions() };
  }
  return null;
}

async function* eventsOf(deps: ResourceDeps, resourceId: string): AsyncGenerator<Recorded<ResourceEvent>> {
  for (let from = 0; ; from += EVENTS_PER_READ) {
    const page = await readDecoded(deps.store, resourceStream(resourceId), from, EVENTS_PER_READ);
    yield* page;
    if (page.length < EVENTS_PER_READ) return;
  }
}

/**
 * A blob's bytes opened slice by slice. The last step checks the tag: bytes that were altered make
 * it throw after the rest went out, which cuts the archive before its `end` line (R-EXP-01).
 */
async function* openedSlices(
  blobs: ResourceDeps['blobs'],
  blobId: string,
  size: number,
  open: (head: Uint8Array) => StreamOpener,
): AsyncGenerator<Buffer> {
  const slice = async (offset: number, length: number): Promise<Buffer> => {
    const part = await blobs.slice(blobId, offset, length);
    if (!part || part.length !== length) throw new Error(`blob ${blobId} changed while it was exported`);
    return part;
  };
  const opener = open(await slice(0, SEALED_HEAD_BYTES));
  for (let offset = SEALED_HEAD_BYTES; offset < size; offset += BLOB_SLICE_BYTES) {
    yield opener.update(await slice(offset, Math.min(BLOB_SLICE_BYTES, size - offset)));
  }
  yield opener.final();
}

const occurredAt = (e: { readonly metadata: { readonly occurredAt: string } }): string => new Date(e.metadata.occurredAt).toISOString();
