import type { Decider } from '../decider.js';
import { refuse } from '../refusal.js';
import type { VaultIndexEvent } from '../../events/document-events.js';

type Entry = { readonly schemaKey: string; readonly uniquePerVault: boolean };
export type VaultIndex = ReadonlyMap<string, Entry>;

export type VaultIndexCommand =
  | {
      readonly kind: 'register';
      readonly vaultId: string;
      readonly resourceId: string;
      readonly schemaKey: string;
      readonly uniquePerVault: boolean;
    }
  | { readonly kind: 'unregister'; readonly vaultId: string; readonly resourceId: string };

/**
 * uniquePerVault (R-DOC-10): a create collides when a live document of the vault has the same
 * schema (schemaRef, or documentSchema as canonical JSON) and either of the two has the flag.
 * The vault's stream orders concurrent creates, so two racing creates cannot both pass.
 */
export const vaultIndex: Decider<VaultIndex, VaultIndexCommand, VaultIndexEvent> = {
  initialState: new Map(),
  evolve: (state, e) => {
    const next = new Map(state);
    if (e.type === 'DocumentRegistered')
      next.set(e.data.resourceId, { schemaKey: e.data.schemaKey, uniquePerVault: e.data.uniquePerVault });
    else next.delete(e.data.resourceId);
    return next;
  },
  decide: (state, cmd) => {
    if (cmd.kind === 'unregister') {
      return state.has(cmd.resourceId)
        ? [{ type: 'DocumentUnregistered', data: { vaultId: cmd.vaultId, resourceId: cmd.resourceId } }]
        : [];
    }
    const collides = [...state.values()].some((e) => e.schemaKey === cmd.schemaKey && (e.uniquePerVault || cmd.uniquePerVault));
    if (collides) return refuse('document_schema_exists', 'document schema already exists in vault');
    return [
      {
        type: 'DocumentRegistered',
        data: { vaultId: cmd.vaultId, resourceId: cmd.resourceId, schemaKey: cmd.schemaKey, uniquePerVault: cmd.uniquePerVault },
      },
    ];
  },
};
