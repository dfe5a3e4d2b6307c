import { builtInOf } from '../../../forms/schemas';
import { fileTitle, type Entity, type FileVersion, type VaultDocument, type VaultFile } from '../vault/vault-data';
import type { RequestItem } from './person-data';

/** What the request page reads of the person's documents, files and legal entities (the vault's own types, fewer fields). */
export type DocumentChoice = Pick<VaultDocument, 'id' | 'name' | 'schemaRef' | 'owner' | 'version'>;
export type FileChoice = Pick<VaultFile, 'id' | 'label' | 'owner' | 'version'> & {
  readonly versions: readonly Pick<FileVersion, 'fileName'>[];
};
export type EntityChoice = Pick<Entity, 'entityId' | 'name' | 'role'>;

export const VAULT_FIELDS = `documents { id name schemaRef owner version }
  files { id label owner version versions { fileName } }
  entities { entityId name role }`;

/** One record the person may share in a slot. */
export type Candidate = { readonly id: string; readonly name: string; readonly detail: string };

export type Vault = {
  readonly documents: readonly DocumentChoice[];
  readonly files: readonly FileChoice[];
  readonly entities: readonly EntityChoice[];
  /** Each document's built-in schema name (a document names it by URL, a slot by bare name). */
  readonly builtInNames: ReadonlyMap<string, string>;
};

/** The vault with each document's built-in resolved, so slots compare by name whatever the base URL. */
export async function vaultOf(raw: Omit<Vault, 'builtInNames'>): Promise<Vault> {
  const named = await Promise.all(
    raw.documents.map(async (d) => [d.id, d.schemaRef ? ((await builtInOf(d.schemaRef))?.name ?? null) : null] as const),
  );
  return { ...raw, builtInNames: new Map(named.filter((n): n is readonly [string, string] => n[1] !== null)) };
}

/** Whose the record is, as the slot needs it: the person's own, or a legal entity's they manage (R-REQ-22). */
function ownerFits(slot: RequestItem, owner: string | null): boolean {
  return slot.subject ? owner !== null : owner === null;
}

/** A slot's target as a built-in's bare name: "PersonFullName" whether it is named so, by file or by URL. */
const builtInName = (target: string): string => (target.split('/').pop() ?? target).replace(/\.json$/, '');

/** The records of the vault a slot takes: files for a file slot, documents of the slot's built-in otherwise. */
export function candidatesFor(slot: RequestItem, vault: Vault): Candidate[] {
  const whose = (owner: string | null) => (owner === null ? '' : `, of ${vault.entities.find((e) => e.entityId === owner)?.name ?? owner}`);
  if (slot.kind === 'file')
    return vault.files
      .filter((f) => ownerFits(slot, f.owner))
      .map((f) => ({ id: f.id, name: fileTitle(f), detail: `version ${f.version}${whose(f.owner)}` }));
  return vault.documents
    .filter((d) => ownerFits(slot, d.owner) && vault.builtInNames.get(d.id) === builtInName(slot.target))
    .map((d) => ({ id: d.id, name: d.name, detail: `version ${d.version}${whose(d.owner)}` }));
}

/** The person's records by name: enough of the vault to name what a history speaks of. */
export type RecordNames = {
  readonly documents: readonly Pick<DocumentChoice, 'id' | 'name'>[];
  readonly files: readonly Pick<FileChoice, 'id' | 'label' | 'versions'>[];
};
export const RECORD_NAME_FIELDS = 'documents { id name } files { id label versions { fileName } }';

/** The person's own name for a record of theirs, when it is in the vault. */
export function recordNameIn(vault: RecordNames): (resourceId: string) => string | undefined {
  return (resourceId) => {
    const document = vault.documents.find((d) => d.id === resourceId);
    if (document) return document.name;
    const file = vault.files.find((f) => f.id === resourceId);
    return file ? fileTitle(file) : undefined;
  };
}
