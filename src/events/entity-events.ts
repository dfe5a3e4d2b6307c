import type { DomainEvent } from './domain-event.js';
import { eventDecoder, streamOf, type StreamRef } from './decoder.js';

/** Stream: `entity-<entityId>`, one legal entity with its members. */
export const entityStreams = {
  entity: (entityId: string): StreamRef<EntityEvent> => streamOf(entityEvents, `entity-${entityId}`),
};

export type EntityRole = 'MANAGER' | 'MEMBER';

/**
 * Members are keyed by normalized login address, not identity id: a MANAGER may add someone
 * who has no account yet, and that person is a member from their first login on.
 */
export type EntityCreated = DomainEvent<'EntityCreated', { entityId: string; name: string; createdBy: string; managerEmail: string }>;
/** Adds a member or changes a member's role. */
export type EntityMemberSet = DomainEvent<'EntityMemberSet', { entityId: string; email: string; role: EntityRole }>;
export type EntityMemberRemoved = DomainEvent<'EntityMemberRemoved', { entityId: string; email: string }>;

export type EntityEvent = EntityCreated | EntityMemberSet | EntityMemberRemoved;

export const entityEvents = eventDecoder<EntityEvent>('legal entity', {
  EntityCreated: { version: 1 },
  EntityMemberSet: { version: 1 },
  EntityMemberRemoved: { version: 1 },
});
