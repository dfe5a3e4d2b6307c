import { documentSealContext } from '../documents/document-service.js';
import { readDecoded } from '../events/decoder.js';
import type { JsonValue } from '../events/envelope.js';
import type { EventStore } from '../events/store.js';
import { resourceStream, type ResourceEvent } from '../events/resource-events.js';
import type { BlobStore } from '../files/blob-store.js';
import { fileSealContext } from '../files/file-service.js';
import type { NewestDocument } from '../requests/request-queries.js';
import { unlessErased, type Opener, type VaultKeyring } from '../vaults/keyring.js';

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

/** The vault a read model says holds the resource, with its opener fetched alongside the stream's read. */
export type VaultHint = { readonly vaultId: string; readonly opener: Promise<Opener> };

export type SourceDeps = { readonly store: Pick<EventStore, 'readStream'>; readonly keyring: VaultKeyring; readonly blobs: BlobStore };

/**
 * A version this close to the first is read with every one before it, in one query: a second
 * query for the stream's first event (a document's schema, a file's label) costs the database and
 * the driver more than decoding a few more events. Past it, the read starts at the version and the
 * first event is read apart, in the same round trip: keeping the newest of a thousand versions reads
 * two events, not the history (docs/decisions.md, Keeping copies).
 */
const READ_WHOLE_BELOW = 16;

/**
 * Reads version `version` of a resource from its own stream (the read models hold only the newest
 * one), in the vault key's context. Null when that version does not exist (any more), or its
 * vault's key was erased: nothing can be kept of it. A caller that knows the resource's vault
 * from a read model (`hint`) has its key read alongside the stream, in the same round trip;
 * the vault the version's event names is the one that opens it all the same. A caller that read a
 * document's newest version with its grant (`newest`, GrantRow.document) is answered from it when
 * that is the version asked for, with no read of the stream.
 *
 * Version n of a resource is its stream's revision n - 1: a resource's id is drawn at random when
 * it is created, so its stream holds one family's events, each publishing the next version (the
 * deciders number it), but a document's deletion, which ends it. So the read starts at the
 * version's revision, and still sees a deletion that came after it.
 */
export async function readSourceVersion(
  deps: SourceDeps,
  resourceId: string,
  version: number,
  hint: VaultHint | null = null,
  newest: NewestDocument | null = null,
): Promise<SourceVersion | null> {
  if (!Number.isSafeInteger(version) || version < 1) return null;
  // The hint's opener is unused when the version is gone or lives elsewhere: its failure (an erased key) is then no one's.
  hint?.opener.catch(() => undefined);
  const decrypt = async (vaultId: string, sealed: Buffer, context: string): Promise<Buffer> =>
    hint && vaultId === hint.vaultId ? (await hint.opener)(sealed, context) : deps.keyring.decrypt(vaultId, sealed, context);
  const document = async (vaultId: string, name: string, schemaRef: string | null, sealedData: string): Promise<SourceVersion | null> => {
    const sealed = Buffer.from(sealedData, 'base64');
    const plaintext = await unlessErased(decrypt(vaultId, sealed, documentSealContext(resourceId, version)));
    return plaintext ? { kind: 'document', name, schemaRef, plaintext } : null;
  };
  // Read in the snapshot the consent gate read, as the row the version's event wrote (docs/decisions.md, Keeping copies).
  if (newest?.version === version) return document(newest.vaultId, newest.name, newest.schemaRef, newest.sealedData);
  const stream = resourceStream(resourceId);
  const from = version - 1 < READ_WHOLE_BELOW ? 0 : version - 1;
  const [events, first] = await Promise.all([
    readDecoded(deps.store, stream, from),
    from === 0 ? null : readDecoded(deps.store, stream, 0, 1),
  ]);
  // Were another version at the version's revision, a deletion before it would go unseen: fail, rather than answer.
  const there = from > 0 ? events[0] : undefined;
  if (there && there.type !== 'DocumentDeleted' && versionOf(there) !== version)
    throw new Error(`resource-${resourceId}: revision ${from} is not version ${version}; its stream breaks the one-event-per-version rule`);
  const at = events.find((e) => versionOf(e) === version);
  if (!at || events.some((e) => e.type === 'DocumentDeleted')) return null;
  const created = first?.[0] ?? events[0];
  switch (at.type) {
    case 'DocumentCreated':
    case 'DocumentUpdated': {
      const schemaRef = created?.type === 'DocumentCreated' ? created.data.schemaRef : null;
      return document(at.data.vaultId, at.data.name, schemaRef, at.data.sealedData);
    }
    case 'FileUploaded':
    case 'FileVersionAdded': {
      const sealed = await deps.blobs.get(at.data.blobId);
      if (!sealed) return null;
      const bytes = await unlessErased(decrypt(at.data.vaultId, sealed, fileSealContext(resourceId, version)));
      if (!bytes) return null;
      const label = created?.type === 'FileUploaded' ? created.data.label : at.data.label;
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

/** A version as a reader is shown it (spec §4.3's candidate, contract §13's record): a document's data, a file's description. */
export function contentOf(
  source: SourceVersion,
  canonicalRef: (schemaRef: string) => string,
): { readonly name: string; readonly schemaRef: string | null; readonly data: JsonValue } {
  return {
    name: source.name,
    schemaRef: source.kind === 'document' && source.schemaRef !== null ? canonicalRef(source.schemaRef) : null,
    data:
      source.kind === 'document'
        ? (JSON.parse(source.plaintext.toString('utf8')) as JsonValue)
        : { label: source.label, fileName: source.fileName, mimeType: source.mimeType, fileSize: source.fileSize },
  };
}
