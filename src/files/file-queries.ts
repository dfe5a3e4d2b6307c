/** Read-model queries of the files projector's tables. */
export const fileSql = {
  /** One version of a file; the newest when $2 is null. */
  version: `
    SELECT f.vault_id::text AS vault_id, v.version, v.blob_id::text AS blob_id, v.file_name, v.mime_type
    FROM rm.file_versions v JOIN rm.files f ON f.resource_id = v.resource_id
    WHERE v.resource_id = $1 AND v.version = COALESCE($2::integer, f.version)`,
  /** The files of the vaults $1, newest first. */
  ofVaults: `
    SELECT resource_id::text AS resource_id, vault_id::text AS vault_id, label, version, created_at, updated_at
    FROM rm.files WHERE vault_id = ANY($1::uuid[]) ORDER BY created_at DESC, resource_id`,
  /** Every version of the files $1, oldest first. */
  versionsOf: `
    SELECT resource_id::text AS resource_id, version, file_name, mime_type, file_size::float8 AS file_size, uploaded_at
    FROM rm.file_versions WHERE resource_id = ANY($1::uuid[]) ORDER BY resource_id, version`,
};

export type FileVersionRow = {
  vault_id: string;
  version: number;
  blob_id: string;
  file_name: string;
  mime_type: string;
};

export type FileRow = {
  resource_id: string;
  vault_id: string;
  label: string | null;
  version: number;
  created_at: Date | string;
  updated_at: Date | string;
};

export type FileVersionListRow = {
  resource_id: string;
  version: number;
  file_name: string;
  mime_type: string;
  file_size: number;
  uploaded_at: Date | string;
};
