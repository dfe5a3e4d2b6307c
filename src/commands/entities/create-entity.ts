import { refuse } from '../refusal.js';
import { entityDecision } from './entity-state.js';

export const MAX_ENTITY_NAME_LENGTH = 200;

/** The caller's login address becomes the first MANAGER. */
export type CreateEntity = { readonly entityId: string; readonly name: string; readonly createdBy: string; readonly managerEmail: string };

export const createEntity = entityDecision<CreateEntity>((state, cmd) => {
  if (state.status !== 'none') return refuse('conflict', 'a legal entity with this id exists');
  const name = cmd.name.trim();
  if (name.length === 0) return refuse('invalid_request', 'name must not be blank');
  if (name.length > MAX_ENTITY_NAME_LENGTH) return refuse('invalid_request', `name must be at most ${MAX_ENTITY_NAME_LENGTH} characters`);
  return [{ type: 'EntityCreated', data: { entityId: cmd.entityId, name, createdBy: cmd.createdBy, managerEmail: cmd.managerEmail } }];
});
