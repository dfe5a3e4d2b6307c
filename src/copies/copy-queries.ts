/** Read-model queries of the copies projector; each is scoped to one request the caller's organization owns. */
const adoption = `SELECT adoption_id::text AS adoption_id, slot_id::text AS slot_id, source_resource_id::text AS source_resource_id,
                  source_version, org_resource_id::text AS org_resource_id, org_version, resource_type, state, participant,
                  adopted_at, materialized_at
                FROM rm.adoptions`;

export const copySql = {
  adoptionsOf: `${adoption} WHERE request_id = $1 AND deleted_at IS NULL ORDER BY adopted_at, source_resource_id, source_version`,
  /** One adoption of the request, as adoptionsOf lists it (a command's answer reads only its own). */
  adoptionOf: `${adoption} WHERE request_id = $1 AND adoption_id = $2 AND deleted_at IS NULL`,
  /**
   * A keep's answer in one statement: its adoption as adoptionOf reads it (every column null
   * without one), and R-KEEP-13's question: is an open proposal of the record (slot $3, resource
   * $4) asking for a version the keep ($5) reached.
   */
  keptAnswer: `SELECT a.*, EXISTS (SELECT 1 FROM rm.proposals p WHERE p.request_id = $1 AND p.slot_id = $3 AND p.resource_id = $4
                 AND p.state = 'open' AND p.new_version <= $5) AS reaches_open_proposal
               FROM (VALUES (1)) AS answer (one)
               LEFT JOIN (${adoption} WHERE request_id = $1 AND adoption_id = $2 AND deleted_at IS NULL) a ON true`,
  versionsOf: `SELECT org_resource_id::text AS org_resource_id, org_version, origin, adoption_id::text AS adoption_id, resource_type,
                 name, schema_ref, sealed_data, blob_id::text AS blob_id, file_name, mime_type, file_size, label, created_at
               FROM rm.copy_versions WHERE request_id = $1 ORDER BY org_resource_id, org_version`,
};

export type AdoptionRow = {
  adoption_id: string;
  slot_id: string;
  source_resource_id: string;
  source_version: number;
  org_resource_id: string | null;
  org_version: number | null;
  resource_type: 'document' | 'file';
  state: 'pending' | 'materialized';
  participant: unknown;
  adopted_at: Date | string;
  materialized_at: Date | string | null;
};

/** A keep's answer (copySql.keptAnswer): adoption_id null when it has no adoption. */
export type KeptAnswerRow = { [K in keyof AdoptionRow]: AdoptionRow[K] | null } & { reaches_open_proposal: boolean };

export type CopyVersionRow = {
  org_resource_id: string;
  org_version: number;
  origin: 'copy' | 'correction';
  adoption_id: string | null;
  resource_type: 'document' | 'file';
  name: string;
  schema_ref: string | null;
  sealed_data: string | null;
  blob_id: string | null;
  file_name: string | null;
  mime_type: string | null;
  file_size: string | number | null;
  label: string | null;
  created_at: Date | string;
};

/** What the copy workers look up: a request's organization, pending work, and where a resource is granted. */
export const copyWorkSql = {
  organizationOf: `SELECT organization_id::text AS organization_id FROM rm.requests WHERE request_id = $1`,
  pendingRequestsOf: `SELECT DISTINCT request_id::text AS request_id FROM rm.adoptions WHERE organization_id = $1 AND state = 'pending'`,
  grantsOfResource: `SELECT DISTINCT request_id::text AS request_id, slot_id::text AS slot_id FROM rm.request_grants
                     WHERE resource_id = $1 AND withdrawn_at IS NULL`,
  grantedAmong: `SELECT DISTINCT resource_id::text AS resource_id FROM rm.request_grants
                 WHERE resource_id = ANY($1::uuid[]) AND withdrawn_at IS NULL`,
  /** Request $1's records kept now (slots $2, resources $3, versions $4) with an open proposal a kept version reaches (R-KEEP-13). */
  proposalsReached: `SELECT p.slot_id::text AS slot_id, p.resource_id::text AS resource_id, max(k.version) AS kept_version
                     FROM rm.proposals p
                     JOIN unnest($2::uuid[], $3::uuid[], $4::int[]) AS k (slot_id, resource_id, version)
                       ON p.slot_id = k.slot_id AND p.resource_id = k.resource_id AND p.new_version <= k.version
                     WHERE p.request_id = $1 AND p.state = 'open'
                     GROUP BY p.slot_id, p.resource_id`,
  /** The newest version of the record kept or pended on the slot, if any (a copy deleted since counts: it takes no update). */
  newestAdopted: `SELECT max(source_version) AS version FROM rm.adoptions
                  WHERE request_id = $1 AND slot_id = $2 AND source_resource_id = $3`,
};

/** The request's organization files: kept file versions and the organization's own attachments. */
export const orgFileSql = {
  keptFiles: `SELECT c.org_resource_id::text AS org_file_id, c.org_version, c.adoption_id::text AS adoption_id, a.source_version,
                a.slot_id::text AS slot_id, a.source_resource_id::text AS source_resource_id, a.participant,
                c.file_name, c.mime_type, c.file_size, c.created_at AS kept_at
              FROM rm.copy_versions c JOIN rm.adoptions a ON a.adoption_id = c.adoption_id
              WHERE c.request_id = $1 AND c.resource_type = 'file'`,
  attachments: `SELECT org_file_id::text AS org_file_id, org_version, file_name, mime_type, file_size, added_at AS kept_at
                FROM rm.org_attachments WHERE request_id = $1`,
};

export type OrgFileVersionRow = {
  org_file_id: string;
  org_version: number;
  adoption_id?: string;
  source_version?: number;
  slot_id?: string;
  source_resource_id?: string;
  participant?: unknown;
  file_name: string;
  mime_type: string;
  file_size: string | number;
  kept_at: Date | string;
};
