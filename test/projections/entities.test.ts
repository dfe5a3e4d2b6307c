import type { EntityCreated, EntityMemberRemoved, EntityMemberSet, EntityRole } from '../../src/events/entity-events.js';
import { entitiesProjector } from '../../src/projections/entities/entities.js';
import { at, projectorSpecs, uuid } from '../support/projector-spec.js';

const acme = uuid(1);
const globex = uuid(2);
const ann = uuid(9);

const created = (entityId: string, name: string, managerEmail: string): EntityCreated => ({
  type: 'EntityCreated',
  data: { entityId, name, createdBy: ann, managerEmail },
});
const memberSet = (entityId: string, email: string, role: EntityRole): EntityMemberSet => ({
  type: 'EntityMemberSet',
  data: { entityId, email, role },
});
const memberRemoved = (entityId: string, email: string): EntityMemberRemoved => ({
  type: 'EntityMemberRemoved',
  data: { entityId, email },
});

const entities = 'SELECT entity_id, name, created_by, created_at FROM entities ORDER BY entity_id';
const members = 'SELECT entity_id, email, role FROM entity_members ORDER BY entity_id, email';

describe('entities read model: legal entities and who may answer for them', () => {
  const given = projectorSpecs();

  it("EntityCreated records the entity and makes its creator's address its MANAGER", () =>
    given(entitiesProjector, at('2026-08-01T00:00:00.500Z', created(acme, 'Acme GmbH', 'ann@example.com')))
      .thenRows(entities, [{ entity_id: acme, name: 'Acme GmbH', created_by: ann, created_at: '2026-08-01T00:00:00.500Z' }])
      .thenRows(members, [{ entity_id: acme, email: 'ann@example.com', role: 'MANAGER' }]));

  it('EntityMemberSet adds an address with its role, and a second set changes the role in place', () =>
    given(
      entitiesProjector,
      created(acme, 'Acme GmbH', 'ann@example.com'),
      memberSet(acme, 'bob@example.com', 'MEMBER'),
      memberSet(acme, 'cleo@example.com', 'MANAGER'),
      memberSet(acme, 'bob@example.com', 'MANAGER'),
      memberSet(acme, 'ann@example.com', 'MEMBER'),
    ).thenRows(members, [
      { entity_id: acme, email: 'ann@example.com', role: 'MEMBER' },
      { entity_id: acme, email: 'bob@example.com', role: 'MANAGER' },
      { entity_id: acme, email: 'cleo@example.com', role: 'MANAGER' },
    ]));

  it('EntityMemberRemoved drops that address from that entity only; re-adding starts afresh', () =>
    given(
      entitiesProjector,
      created(acme, 'Acme GmbH', 'ann@example.com'),
      created(globex, 'Globex AG', 'bob@example.com'),
      memberSet(acme, 'bob@example.com', 'MANAGER'),
      memberSet(globex, 'ann@example.com', 'MEMBER'),
      memberRemoved(acme, 'bob@example.com'),
      memberRemoved(acme, 'ann@example.com'),
      memberSet(acme, 'ann@example.com', 'MEMBER'),
    )
      .thenRows(members, [
        { entity_id: acme, email: 'ann@example.com', role: 'MEMBER' },
        { entity_id: globex, email: 'ann@example.com', role: 'MEMBER' },
        { entity_id: globex, email: 'bob@example.com', role: 'MANAGER' },
      ])
      .thenRows('SELECT name FROM entities ORDER BY entity_id', [{ name: 'Acme GmbH' }, { name: 'Globex AG' }]));
});
