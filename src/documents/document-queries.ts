const columns = `resource_id::text AS resource_id, vault_id::text AS vault_id, name, description, schema_ref, document_schema,
                 version, sealed_data, created_at, updated_at`;

/** Read-model queries of the documents projector's table. */
export const documentSql = {
  liveOfVaults: `SELECT ${columns} FROM rm.documents WHERE vault_id = ANY($1::uuid[]) AND deleted_at IS NULL
                 ORDER BY created_at DESC, resource_id`,
  liveById: `SELECT ${columns} FROM rm.documents WHERE resource_id = $1 AND deleted_at IS NULL`,
  versionsOf: `SELECT version, published_at FROM rm.document_versions WHERE resource_id = $1 ORDER BY version`,
};
