import { deciderOf, type CommandOf } from '../decider.js';
import { createEntity } from './create-entity.js';
import { evolveEntity, noEntity } from './entity-state.js';
import { removeEntityMember } from './remove-entity-member.js';
import { setEntityMember } from './set-entity-member.js';

const entityDecisions = { CreateEntity: createEntity, SetEntityMember: setEntityMember, RemoveEntityMember: removeEntityMember };

/** Every command on a legal entity's stream (`entity-<entityId>`): its creation and its members. */
export type EntityCommand = CommandOf<typeof entityDecisions>;

/** The legal entity's one decider: every refusal of an entity command is in the decision its type names. */
export const entityDecider = deciderOf(noEntity, evolveEntity, entityDecisions);
