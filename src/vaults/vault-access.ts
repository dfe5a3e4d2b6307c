import type { Caller } from '../identity/identity-service.js';
import type { Refusal } from '../commands/refusal.js';

/**
 * Which vault a caller's resource lives in. A person's own vault has the person's identity id;
 * a legal entity's vault has the entity id. Anything the caller may not use answers not_found,
 * exactly as an unknown id (R-HTTP-10).
 */
export interface VaultAccess {
  /** The vault a create goes to: the caller's own (owner null) or an entity the caller manages. */
  writableVault(caller: Caller, owner: string | null): Promise<string | Refusal>;
  /** Whether the caller may change resources of this vault (own vault, or MANAGER of the entity). */
  canWrite(caller: Caller, vaultId: string): Promise<boolean>;
  /** Whether the caller may read resources of this vault (own vault, or any member of the entity). */
  canRead(caller: Caller, vaultId: string): Promise<boolean>;
  /** Every vault the caller may read: their own and their entities'. */
  readableVaults(caller: Caller): Promise<string[]>;
}
