import { readFileSync } from 'node:fs';
import { entityEvents } from '../../events/entity-events.js';
import { projector, writes } from '../projector.js';

const sql = {
  insertEntity: `INSERT INTO entities (entity_id, name, created_by, created_at) VALUES ($1, $2, $3, $4)`,
  upsertMember: `INSERT INTO entity_members (entity_id, email, role) VALUES ($1, $2, $3)
                 ON CONFLICT (entity_id, email) DO UPDATE SET role = EXCLUDED.role`,
  deleteMember: `DELETE FROM entity_members WHERE entity_id = $1 AND email = $2`,
};

export const entitiesProjector = projector({
  name: 'entities',
  version: 1,
  schemaSql: readFileSync(new URL('./entities.sql', import.meta.url), 'utf8'),
  events: entityEvents,
  on: {
    EntityCreated: writes((e) => [
      [sql.insertEntity, [e.data.entityId, e.data.name, e.data.createdBy, e.metadata.occurredAt]],
      [sql.upsertMember, [e.data.entityId, e.data.managerEmail, 'MANAGER']],
    ]),
    EntityMemberSet: writes((e) => [[sql.upsertMember, [e.data.entityId, e.data.email, e.data.role]]]),
    EntityMemberRemoved: writes((e) => [[sql.deleteMember, [e.data.entityId, e.data.email]]]),
  },
});
