import { graphql, upload } from '../../../api';
import { schemaWords } from '../../../words';

/**
 * The person's GraphQL answers, one type each: `Document`, `VaultFile`, `LegalEntity`. The vault
 * page asks every field below; the request pages ask fewer and name the ones they pick.
 */

/** A document (GraphQL `Document`, with its versions). */
export type VaultDocument = {
  readonly id: string;
  readonly name: string;
  readonly owner: string | null;
  readonly schemaRef: string | null;
  readonly documentSchema: unknown;
  readonly version: number;
  readonly data: unknown;
  readonly versions: readonly { readonly version: number; readonly publishedAt: string }[];
};

export type FileVersion = {
  readonly version: number;
  readonly fileName: string;
  readonly mimeType: string;
  readonly fileSize: number;
  readonly uploadedAt: string;
};

/** A file (GraphQL `VaultFile`). */
export type VaultFile = {
  readonly id: string;
  readonly label: string | null;
  readonly owner: string | null;
  readonly version: number;
  readonly versions: readonly FileVersion[];
};

export type EntityRole = 'MANAGER' | 'MEMBER';

/** A legal entity the person belongs to; `role` is their own. */
export type Entity = {
  readonly entityId: string;
  readonly name: string;
  readonly role: EntityRole;
  readonly members: readonly { readonly email: string; readonly role: EntityRole }[];
};

const ENTITY_FIELDS = 'entities { entityId name role members { email role } }';

export type Documents = { readonly documents: readonly VaultDocument[]; readonly entities: readonly Entity[] };
export const loadDocuments = async (): Promise<Documents> =>
  (
    await graphql<{ user: Documents }>(`{ user {
      documents { id name owner schemaRef documentSchema version data versions { version publishedAt } }
      ${ENTITY_FIELDS} } }`)
  ).user;

/** One earlier version of a document with its data, read from the log only for it; null for one never published. */
export type ShownVersion = { readonly version: number; readonly data: unknown };
const VERSION_OF = 'query($id: ID!, $v: Int!) { user { document(id: $id) { versionOf(version: $v) { version data } } } }';
export const loadVersion = async (documentId: string, version: number): Promise<ShownVersion | null> =>
  (await graphql<{ user: { document: { versionOf: ShownVersion | null } | null } }>(VERSION_OF, { id: documentId, v: version })).user
    .document?.versionOf ?? null;

const CREATE = 'mutation($input: DocumentInput!) { user { document { create(input: $input) { id version } } } }';

/** A new document; `owner` the legal entity whose vault takes it, '' for the person's own. */
export type NewDocumentInput = { readonly name: string; readonly schemaRef: string; readonly data: unknown; readonly owner: string };

export async function createDocument({ owner, ...rest }: NewDocumentInput): Promise<{ readonly id: string; readonly version: number }> {
  const input = owner ? { ...rest, owner } : rest;
  return (await graphql<{ user: { document: { create: { id: string; version: number } } } }>(CREATE, { input })).user.document.create;
}

export type Files = { readonly files: readonly VaultFile[]; readonly entities: readonly Entity[] };
export const loadFiles = async (): Promise<Files> =>
  (
    await graphql<{ user: Files }>(`{ user {
      files { id label owner version versions { version fileName mimeType fileSize uploadedAt } }
      ${ENTITY_FIELDS} } }`)
  ).user;

export const loadEntities = async (): Promise<readonly Entity[]> =>
  (await graphql<{ user: { entities: Entity[] } }>(`{ user { ${ENTITY_FIELDS} } }`)).user.entities;

/** Whose a record is, in words: nothing for the person's own, else the legal entity's name. */
export function ownerWords(owner: string | null, entities: readonly Entity[]): string | null {
  if (owner === null) return null;
  return `Belongs to ${entities.find((e) => e.entityId === owner)?.name ?? 'a legal entity'}`;
}

/** A file by the name the person gave it, else the name of its newest version. */
export const fileTitle = (f: { readonly label: string | null; readonly versions: readonly { readonly fileName: string }[] }): string =>
  f.label ?? f.versions.at(-1)?.fileName ?? 'A file';

/** Whether the person may change a record: their own, or a legal entity's they manage (its members only read it). */
export const mayChange = (owner: string | null, entities: readonly Entity[]): boolean =>
  owner === null || entities.some((e) => e.entityId === owner && e.role === 'MANAGER');

/** Where a file goes: a new file (with what it is, and whose), or a new version of `fileId`. */
export type FileTarget = { readonly fileId?: string; readonly label?: string; readonly owner?: string };

/** What the vault answers for a file sent: its id, and the version the bytes became. */
export type SentFile = { readonly fileId: string; readonly version: number };

/** Sends a file's bytes to the vault (POST /vault/files, or a file's versions); `onProgress` hears how much has gone. */
export function sendFile(file: File, to: FileTarget, onProgress: (fraction: number) => void): Promise<SentFile> {
  const query = new URLSearchParams({
    fileName: file.name,
    ...(to.label ? { label: to.label } : {}),
    ...(to.owner ? { owner: to.owner } : {}),
  });
  const path = to.fileId ? `/vault/files/${encodeURIComponent(to.fileId)}/versions?${query}` : `/vault/files?${query}`;
  return upload(path, file, { 'content-type': file.type || 'application/octet-stream' }, onProgress);
}

export const roleWords = (role: EntityRole): string => (role === 'MANAGER' ? 'Manager' : 'Member');

/** The documents in groups by schema: a built-in's words, and one group for those with a schema of their own. */
export function bySchema(documents: readonly VaultDocument[]): { readonly title: string; readonly documents: VaultDocument[] }[] {
  const groups = new Map<string, VaultDocument[]>();
  for (const d of documents) {
    const title = d.schemaRef ? schemaWords(d.schemaRef) : 'With a schema of their own';
    groups.set(title, [...(groups.get(title) ?? []), d]);
  }
  return [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([title, docs]) => ({ title, documents: docs }));
}
