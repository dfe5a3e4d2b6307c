const columns = `v.manifest_id::text AS manifest_id, v.name, v.purpose, v.version, v.retention, v.slots, v.published_at`;

/** Read-model queries of the manifests projector's tables; each names the organization, so a foreign id finds nothing. */
export const manifestSql = {
  newestOfOrganization: `SELECT ${columns} FROM rm.manifests m
                         JOIN rm.manifest_versions v ON v.manifest_id = m.manifest_id AND v.version = m.latest_version
                         WHERE m.organization_id = $1 ORDER BY m.created_at DESC, m.manifest_id`,
  newest: `SELECT ${columns} FROM rm.manifests m
           JOIN rm.manifest_versions v ON v.manifest_id = m.manifest_id AND v.version = m.latest_version
           WHERE m.organization_id = $1 AND m.manifest_id = $2`,
  version: `SELECT ${columns} FROM rm.manifest_versions v WHERE v.organization_id = $1 AND v.manifest_id = $2 AND v.version = $3`,
  exists: `SELECT 1 FROM rm.manifests WHERE organization_id = $1 AND manifest_id = $2`,
};

export type ManifestRow = {
  manifest_id: string;
  name: string;
  purpose: string;
  version: number;
  retention: string;
  slots: unknown;
  published_at: Date | string;
};
