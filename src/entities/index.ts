/** Legal entities: the service behind EntityMutation and the vault access that knows their members. */
export { EntityService, type EntityDeps } from './entity-service.js';
export { EntityVaultAccess } from './entity-vault-access.js';
export type { EntityMemberView, LegalEntityView } from './entity-view.js';
