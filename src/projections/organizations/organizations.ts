import { readFileSync } from 'node:fs';
import { organizationEvents } from '../../events/organization-events.js';
import { projector, writes } from '../projector.js';

const sql = {
  insertOrganization: `INSERT INTO organizations (organization_id, name, created_by, created_at) VALUES ($1, $2, $3, $4)`,
  upsertMember: `INSERT INTO organization_members (organization_id, email, permissions, added_at, membership_id) VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (organization_id, email) DO UPDATE SET permissions = EXCLUDED.permissions`,
  deleteMember: `DELETE FROM organization_members WHERE organization_id = $1 AND email = $2`,
  warm: `UPDATE organizations SET key_warm_until = $2, key_warmed_at = $3 WHERE organization_id = $1`,
  seal: `UPDATE organizations SET key_warm_until = NULL, key_warmed_at = NULL, key_sealed_at = $2 WHERE organization_id = $1`,
  insertApp: `INSERT INTO organization_apps
                (client_id, organization_id, name, registered_at, redirect_uris, jwks, jwks_uri, identity_provider)
              VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
};

export const organizationsProjector = projector({
  name: 'organizations',
  version: 4,
  schemaSql: readFileSync(new URL('./organizations.sql', import.meta.url), 'utf8'),
  events: organizationEvents,
  on: {
    OrganizationCreated: writes((e) => [
      [sql.insertOrganization, [e.data.organizationId, e.data.name, e.data.createdBy, e.metadata.occurredAt]],
    ]),
    MemberSet: writes((e) => [
      [
        sql.upsertMember,
        [e.data.organizationId, e.data.email, JSON.stringify(e.data.permissions), e.metadata.occurredAt, e.metadata.eventId],
      ],
    ]),
    MemberRemoved: writes((e) => [[sql.deleteMember, [e.data.organizationId, e.data.email]]]),
    KeyWarmed: writes((e) => [[sql.warm, [e.data.organizationId, e.data.until, e.metadata.occurredAt]]]),
    KeySealed: writes((e) => [[sql.seal, [e.data.organizationId, e.metadata.occurredAt]]]),
    AppRegistered: writes(({ data: d, metadata }) => [
      [
        sql.insertApp,
        [
          d.clientId,
          d.organizationId,
          d.name,
          metadata.occurredAt,
          JSON.stringify(d.redirectUris),
          d.jwks === null ? null : JSON.stringify(d.jwks),
          d.jwksUri,
          d.identityProvider === null ? null : JSON.stringify(d.identityProvider),
        ],
      ],
    ]),
  },
});
