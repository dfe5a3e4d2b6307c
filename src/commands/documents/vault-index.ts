import { deciderOf, type CommandOf } from '../decider.js';
import { refuse, type Refusal } from '../refusal.js';
import type { VaultIndexEvent } from '../../events/document-events.js';

type Entry = { readonly schemaKey: string; readonly uniquePerVault: boolean };
/**
 * A vault's live documents by their schema: an aggregate of its own, on the vault's stream
 * (`vault-<vaultId>`), beside each document's own stream.
 */
export type VaultIndex = ReadonlyMap<string, Entry>;

/** A document being created takes its schema into its vault's index, before its own stream is written. */
export type RegisterDocument = {
  readonly vaultId: string;
  readonly resourceId: string;
  readonly schemaKey: string;
  /** Keys the same schema had under the bases served before (a built-in's ids: contract §10.13). */
  readonly earlierKeys: readonly string[];
  readonly uniquePerVault: boolean;
};

/** A deleted document lets its schema go, so another document of the vault may take it. */
export type UnregisterDocument = { readonly vaultId: string; readonly resourceId: string };

/** Every command on a vault's document index. */
export type VaultIndexCommand = CommandOf<typeof vaultIndexDecisions>;

type VaultIndexDecision<C> = (state: VaultIndex, command: C) => readonly VaultIndexEvent[] | Refusal;

/**
 * uniquePerVault (R-DOC-10): a create collides when a live document of the vault has the same
 * schema (schemaRef, or documentSchema as canonical JSON) and either of the two has the flag.
 * The vault's stream orders concurrent creates, so two racing creates cannot both pass.
 */
export const registerDocument: VaultIndexDecision<RegisterDocument> = (state, cmd) => {
  const same = new Set([cmd.schemaKey, ...cmd.earlierKeys]);
  const collides = [...state.values()].some((e) => same.has(e.schemaKey) && (e.uniquePerVault || cmd.uniquePerVault));
  if (collides) return refuse('document_schema_exists', 'document schema already exists in vault');
  return [
    {
      type: 'DocumentRegistered',
      data: { vaultId: cmd.vaultId, resourceId: cmd.resourceId, schemaKey: cmd.schemaKey, uniquePerVault: cmd.uniquePerVault },
    },
  ];
};

/** A document the index does not hold changes nothing. */
export const unregisterDocument: VaultIndexDecision<UnregisterDocument> = (state, cmd) =>
  state.has(cmd.resourceId) ? [{ type: 'DocumentUnregistered', data: { vaultId: cmd.vaultId, resourceId: cmd.resourceId } }] : [];

function evolveVaultIndex(state: VaultIndex, event: VaultIndexEvent): VaultIndex {
  const next = new Map(state);
  switch (event.type) {
    case 'DocumentRegistered':
      next.set(event.data.resourceId, { schemaKey: event.data.schemaKey, uniquePerVault: event.data.uniquePerVault });
      return next;
    case 'DocumentUnregistered':
      next.delete(event.data.resourceId);
      return next;
  }
}

const vaultIndexDecisions = { RegisterDocument: registerDocument, UnregisterDocument: unregisterDocument };

/** The vault index's one decider: every refusal of an index command is in the decision its type names. */
const emptyIndex: VaultIndex = new Map();

export const vaultIndex = deciderOf(emptyIndex, evolveVaultIndex, vaultIndexDecisions);
