import type { Caller } from '../identity/identity-service.js';
import { isUuid } from '../ids.js';
import { refuse, type Refusal } from '../commands/refusal.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EntityRole } from '../events/entity-events.js';
import type { VaultAccess } from '../vaults/vault-access.js';
import { entitySql as q } from './entity-queries.js';

/**
 * Vaults of people and legal entities: the caller's own vault always; an entity's vault is
 * readable by its members and writable by its MANAGERs. Read on every call from the entities
 * read model, so a role change or a removal takes effect on the next request.
 */
export class EntityVaultAccess implements VaultAccess {
  constructor(private readonly readModels: SqlExecutor) {}

  /**
   * An entity the caller is not in answers not_found, as an unknown id; a MEMBER can see the
   * entity, so refusing them as if it did not exist would be a lie: forbidden.
   */
  async writableVault(caller: Caller, owner: string | null): Promise<string | Refusal> {
    if (owner === null) return caller.identityId;
    const role = await this.roleIn(caller, owner);
    if (role === null) return refuse('not_found', 'no such legal entity');
    if (role !== 'MANAGER') return refuse('forbidden', 'only a MANAGER of the legal entity may change its resources');
    return owner;
  }

  async canWrite(caller: Caller, vaultId: string): Promise<boolean> {
    return vaultId === caller.identityId || (await this.roleIn(caller, vaultId)) === 'MANAGER';
  }

  async canRead(caller: Caller, vaultId: string): Promise<boolean> {
    return vaultId === caller.identityId || (await this.roleIn(caller, vaultId)) !== null;
  }

  async readableVaults(caller: Caller): Promise<string[]> {
    const rows = (await this.readModels.query<{ entity_id: string }>(q.entityIdsOf, [caller.email])).rows;
    return [caller.identityId, ...rows.map((r) => r.entity_id)];
  }

  private async roleIn(caller: Caller, entityId: string): Promise<EntityRole | null> {
    if (!isUuid(entityId)) return null;
    const row = (await this.readModels.query<{ role: EntityRole }>(q.roleOf, [entityId, caller.email])).rows[0];
    return row?.role ?? null;
  }
}
