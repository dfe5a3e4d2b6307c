import { randomUUID } from 'node:crypto';
import { normalizeEmail } from '../identity/email.js';
import type { Caller } from '../identity/identity-service.js';
import { isUuid } from '../ids.js';
import { entityDecider } from '../commands/entities/entity-decider.js';
import type { EntityState } from '../commands/entities/entity-state.js';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps, type Handled } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EventContext } from '../events/envelope.js';
import { entityStreams as streams, type EntityEvent, type EntityRole } from '../events/entity-events.js';
import { entitySql as q } from './entity-queries.js';
import { sortedMembers, type LegalEntityView } from './entity-view.js';

export type EntityDeps = CommandDeps & { readonly readModels: SqlExecutor };

/** Legal entities: EntityMutation and UserQuery.entities (R-ENT-01 to R-ENT-06). Membership is by login address. */
export class EntityService {
  constructor(private readonly deps: EntityDeps) {}

  async create(caller: Caller, name: string, context: EventContext): Promise<LegalEntityView | Refusal> {
    const entityId = randomUUID();
    const done = await handle(
      this.deps,
      streams.entity(entityId),
      entityDecider,
      { type: 'CreateEntity', data: { entityId, name, createdBy: caller.identityId, managerEmail: caller.email } },
      { context, newStream: true },
    );
    return answer(done, caller);
  }

  async setMember(
    caller: Caller,
    entityId: string,
    email: string,
    role: EntityRole,
    context: EventContext,
  ): Promise<LegalEntityView | Refusal> {
    const member = normalizeEmail(email);
    if (isRefusal(member)) return member;
    if (!isUuid(entityId)) return noSuchEntity();
    const done = await handle(
      this.deps,
      streams.entity(entityId),
      entityDecider,
      { type: 'SetEntityMember', data: { entityId, actorEmail: caller.email, email: member, role } },
      { context },
    );
    return answer(done, caller);
  }

  async removeMember(caller: Caller, entityId: string, email: string, context: EventContext): Promise<LegalEntityView | Refusal> {
    const member = normalizeEmail(email);
    if (isRefusal(member)) return member;
    if (!isUuid(entityId)) return noSuchEntity();
    const done = await handle(
      this.deps,
      streams.entity(entityId),
      entityDecider,
      { type: 'RemoveEntityMember', data: { entityId, actorEmail: caller.email, email: member } },
      { context },
    );
    return answer(done, caller);
  }

  /** The entities the caller's login address is a member of, with every member. */
  async list(caller: Caller): Promise<LegalEntityView[]> {
    const entities = (await this.deps.readModels.query<{ entity_id: string; name: string; role: EntityRole }>(q.entitiesOf, [caller.email]))
      .rows;
    if (entities.length === 0) return [];
    const members = (
      await this.deps.readModels.query<{ entity_id: string; email: string; role: EntityRole }>(q.membersOf, [
        entities.map((e) => e.entity_id),
      ])
    ).rows;
    return entities.map((e) => ({
      entityId: e.entity_id,
      name: e.name,
      role: e.role,
      members: members.filter((m) => m.entity_id === e.entity_id).map((m) => ({ email: m.email, role: m.role })),
    }));
  }
}

const noSuchEntity = () => refuse('not_found', 'no such legal entity');

function answer(done: Handled<EntityEvent, EntityState> | Refusal, caller: Caller): LegalEntityView | Refusal {
  if (isRefusal(done)) return done;
  const entity = done.state;
  if (entity.status !== 'active') return noSuchEntity();
  return {
    entityId: entity.entityId,
    name: entity.name,
    // Only a MANAGER may remove members, so a caller missing afterwards removed themselves as one:
    // the answer names the role the call was made with.
    role: entity.members.get(caller.email) ?? 'MANAGER',
    members: sortedMembers(entity.members),
  };
}
