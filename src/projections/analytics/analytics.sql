-- The analytics contract (docs/analytics.md): stable names and types over the read models, which stay
-- free to change. Table names are unqualified: the installer resolves them in the live read-model
-- schema (search_path), and PostgreSQL binds each view to those tables, not to their names.
-- Every column is cast to its documented type so that a change of an internal column type cannot
-- change the contract. Nothing sealed and no address is selected: personal data stays out.

CREATE OR REPLACE VIEW analytics.organizations AS
SELECT organization_id::uuid AS organization_id,
       name::text AS organization_name,
       created_at::timestamptz AS created_at
FROM organizations;

CREATE OR REPLACE VIEW analytics.manifests AS
SELECT manifest_id::uuid AS manifest_id,
       organization_id::uuid AS organization_id,
       name::text AS manifest_name,
       latest_version::integer AS latest_version,
       created_at::timestamptz AS created_at
FROM manifests;

CREATE OR REPLACE VIEW analytics.manifest_versions AS
SELECT manifest_id::uuid AS manifest_id,
       version::integer AS manifest_version,
       organization_id::uuid AS organization_id,
       name::text AS manifest_name,
       retention::text AS retention,
       jsonb_array_length(slots)::integer AS slot_count,
       published_at::timestamptz AS published_at
FROM manifest_versions;

CREATE OR REPLACE VIEW analytics.manifest_slots AS
SELECT v.manifest_id::uuid AS manifest_id,
       v.version::integer AS manifest_version,
       v.organization_id::uuid AS organization_id,
       (s.slot ->> 'slotId')::uuid AS slot_id,
       s.position::integer AS slot_position,
       (s.slot ->> 'label')::text AS slot_label,
       (s.slot ->> 'group')::text AS slot_group,
       (s.slot ->> 'kind')::text AS slot_kind,
       (s.slot ->> 'target')::text AS slot_target,
       (s.slot ->> 'subject')::text AS slot_subject,
       (s.slot ->> 'multiple')::boolean AS multiple,
       (s.slot ->> 'adoption')::text AS adoption
FROM manifest_versions v
CROSS JOIN LATERAL jsonb_array_elements(v.slots) WITH ORDINALITY AS s (slot, position);

-- state repeats src/requests/request-status.ts#evaluateState at the moment of the query.
CREATE OR REPLACE VIEW analytics.requests AS
SELECT request_id::uuid AS request_id,
       organization_id::uuid AS organization_id,
       manifest_id::uuid AS manifest_id,
       manifest_version::integer AS manifest_version,
       initiated_by::text AS initiated_by,
       initiating_client_id::text AS initiating_client_id,
       (CASE phase
          WHEN 'pending' THEN CASE WHEN invitation_expires_at <= now() THEN 'expired' ELSE 'pending' END
          WHEN 'cancelled' THEN 'rejected_by_sender'
          WHEN 'rejected' THEN 'rejected_by_recipient'
          WHEN 'revoked' THEN 'revoked'
          ELSE CASE WHEN accepted_at + retention_ms * interval '1 millisecond' <= now() THEN 'expired' ELSE phase END
        END)::text AS state,
       created_at::timestamptz AS created_at,
       invitation_expires_at::timestamptz AS invitation_expires_at,
       accepted_at::timestamptz AS accepted_at,
       (accepted_at + retention_ms * interval '1 millisecond')::timestamptz AS retention_ends_at
FROM requests;

CREATE OR REPLACE VIEW analytics.grants AS
SELECT g.request_id::uuid AS request_id,
       r.organization_id::uuid AS organization_id,
       g.slot_id::uuid AS slot_id,
       g.resource_id::uuid AS resource_id,
       (CASE WHEN g.entity_id IS NULL THEN 'recipient' ELSE 'entity' END)::text AS held_by,
       g.entity_id::uuid AS entity_id,
       g.granted_at::timestamptz AS granted_at,
       g.withdrawn_at::timestamptz AS withdrawn_at
FROM request_grants g
JOIN requests r ON r.request_id = g.request_id;

CREATE OR REPLACE VIEW analytics.adoptions AS
SELECT adoption_id::uuid AS adoption_id,
       request_id::uuid AS request_id,
       organization_id::uuid AS organization_id,
       slot_id::uuid AS slot_id,
       source_resource_id::uuid AS source_resource_id,
       source_version::integer AS source_version,
       resource_type::text AS resource_type,
       (participant ->> 'type')::text AS participant_type,
       state::text AS state,
       org_resource_id::uuid AS org_resource_id,
       org_version::integer AS org_version,
       adopted_at::timestamptz AS adopted_at,
       materialized_at::timestamptz AS kept_at,
       deleted_at::timestamptz AS deleted_at
FROM adoptions;

CREATE OR REPLACE VIEW analytics.copy_versions AS
SELECT org_resource_id::uuid AS org_resource_id,
       org_version::integer AS org_version,
       origin::text AS origin,
       adoption_id::uuid AS adoption_id,
       request_id::uuid AS request_id,
       organization_id::uuid AS organization_id,
       slot_id::uuid AS slot_id,
       source_resource_id::uuid AS source_resource_id,
       resource_type::text AS resource_type,
       schema_ref::text AS schema_ref,
       mime_type::text AS mime_type,
       file_size::bigint AS file_size,
       created_at::timestamptz AS created_at
FROM copy_versions;

CREATE OR REPLACE VIEW analytics.proposals AS
SELECT proposal_id::uuid AS proposal_id,
       request_id::uuid AS request_id,
       organization_id::uuid AS organization_id,
       slot_id::uuid AS slot_id,
       resource_id::uuid AS resource_id,
       new_version::integer AS new_version,
       (participant ->> 'type')::text AS participant_type,
       state::text AS state,
       closed_reason::text AS closed_reason,
       proposed_at::timestamptz AS proposed_at,
       closed_at::timestamptz AS closed_at
FROM proposals;

CREATE OR REPLACE VIEW analytics.receipts AS
SELECT event_id::uuid AS receipt_id,
       request_id::uuid AS request_id,
       organization_id::uuid AS organization_id,
       resource_id::uuid AS resource_id,
       version::integer AS version,
       client_id::text AS client_id,
       read_at::timestamptz AS read_at
FROM receipts;

CREATE OR REPLACE VIEW analytics.documents AS
SELECT resource_id::uuid AS resource_id,
       vault_id::uuid AS vault_id,
       schema_ref::text AS schema_ref,
       unique_per_vault::boolean AS unique_per_vault,
       version::integer AS version,
       created_at::timestamptz AS created_at,
       updated_at::timestamptz AS updated_at,
       deleted_at::timestamptz AS deleted_at
FROM documents;

CREATE OR REPLACE VIEW analytics.file_versions AS
SELECT f.resource_id::uuid AS resource_id,
       f.vault_id::uuid AS vault_id,
       v.version::integer AS version,
       v.mime_type::text AS mime_type,
       v.file_size::bigint AS file_size,
       v.uploaded_at::timestamptz AS uploaded_at
FROM file_versions v
JOIN files f ON f.resource_id = v.resource_id;
