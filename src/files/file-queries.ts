/** Read-model queries of the files projector's tables. */
export const fileSql = {
  /** One version of a file; the newest when $2 is null. */
  version: `
    SELECT f.vault_id::text AS vault_id, v.version, v.blob_id::text AS blob_id, v.file_name, v.mime_type
    FROM rm.file_versions v JOIN rm.files f ON f.resource_id = v.resource_id
    WHERE v.resource_id = $1 AND v.version = COALESCE($2::integer, f.version)`,
};

export type FileVersionRow = {
  vault_id: string;
  version: number;
  blob_id: string;
  file_name: string;
  mime_type: string;
};
