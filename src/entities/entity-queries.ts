/** Read-model queries of the entities projector's tables. Addresses sort bytewise, the same on every backend. */
export const entitySql = {
  roleOf: `SELECT role FROM rm.entity_members WHERE entity_id = $1 AND email = $2`,
  entityIdsOf: `SELECT entity_id::text AS entity_id FROM rm.entity_members WHERE email = $1`,
  entitiesOf: `SELECT e.entity_id::text AS entity_id, e.name, m.role
               FROM rm.entities e JOIN rm.entity_members m ON m.entity_id = e.entity_id
               WHERE m.email = $1 ORDER BY e.created_at, e.entity_id`,
  membersOf: `SELECT entity_id::text AS entity_id, email, role FROM rm.entity_members
              WHERE entity_id = ANY($1::uuid[]) ORDER BY email COLLATE "C"`,
};
