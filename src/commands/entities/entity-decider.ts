import type { EntityEvent } from '../../events/entity-events.js';
import type { Decider } from '../decider.js';
import { createEntity, type CreateEntity } from './create-entity.js';
import { evolveEntity, noEntity, type EntityState } from './entity-state.js';
import { removeEntityMember, type RemoveEntityMember } from './remove-entity-member.js';
import { setEntityMember, type SetEntityMember } from './set-entity-member.js';

/** Every command on a legal entity's stream (`entity-<entityId>`): its creation and its members. */
export type EntityCommand =
  | { readonly type: 'CreateEntity'; readonly data: CreateEntity }
  | { readonly type: 'SetEntityMember'; readonly data: SetEntityMember }
  | { readonly type: 'RemoveEntityMember'; readonly data: RemoveEntityMember };

/** The legal entity's one decider: every refusal of an entity command is in the decision it switches to. */
export const entityDecider: Decider<EntityState, EntityCommand, EntityEvent> = {
  initialState: noEntity,
  evolve: evolveEntity,
  decide: (state, command) => {
    switch (command.type) {
      case 'CreateEntity':
        return createEntity(state, command.data);
      case 'SetEntityMember':
        return setEntityMember(state, command.data);
      case 'RemoveEntityMember':
        return removeEntityMember(state, command.data);
      default: {
        const unknown: never = command;
        return unknown;
      }
    }
  },
};
