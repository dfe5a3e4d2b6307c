import type { DomainEvent } from './domain-event.js';
import { eventDecoder, streamOf, type StreamRef } from './decoder.js';
import type { JsonValue } from './envelope.js';

/** Streams: `resource-<resourceId>` (one document's versions: resource-events.ts), `vault-<vaultId>` (which documents live there). */
export const documentStreams = {
  vault: (vaultId: string): StreamRef<VaultIndexEvent> => streamOf(vaultIndexEvents, `vault-${vaultId}`),
};

/**
 * Version 1 of a document. The schema is kept in clear beside the data (R-DOC-07);
 * the data only sealed with the owning vault's key (base64 of iv | tag | ciphertext).
 */
export type DocumentCreated = DomainEvent<
  'DocumentCreated',
  {
    resourceId: string;
    vaultId: string;
    name: string;
    description: string | null;
    schemaRef: string | null;
    documentSchema: JsonValue;
    uniquePerVault: boolean;
    version: number;
    sealedData: string;
  }
>;

/** Version n+1: new data (and name or description); the schema stays as created. */
export type DocumentUpdated = DomainEvent<
  'DocumentUpdated',
  {
    resourceId: string;
    vaultId: string;
    name: string;
    description: string | null;
    version: number;
    sealedData: string;
  }
>;

export type DocumentDeleted = DomainEvent<'DocumentDeleted', { resourceId: string; vaultId: string }>;

export type DocumentEvent = DocumentCreated | DocumentUpdated | DocumentDeleted;

export const documentEvents = eventDecoder<DocumentEvent>('document', {
  DocumentCreated: { version: 1 },
  DocumentUpdated: { version: 1 },
  DocumentDeleted: { version: 1 },
});

/** The vault's index of live documents by schema, for uniquePerVault (R-DOC-10). */
export type DocumentRegistered = DomainEvent<
  'DocumentRegistered',
  { vaultId: string; resourceId: string; schemaKey: string; uniquePerVault: boolean }
>;
export type DocumentUnregistered = DomainEvent<'DocumentUnregistered', { vaultId: string; resourceId: string }>;

export type VaultIndexEvent = DocumentRegistered | DocumentUnregistered;

export const vaultIndexEvents = eventDecoder<VaultIndexEvent>('vault index', {
  DocumentRegistered: { version: 1 },
  DocumentUnregistered: { version: 1 },
});
