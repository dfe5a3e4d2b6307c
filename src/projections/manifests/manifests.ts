import { readFileSync } from 'node:fs';
import { manifestEvents } from '../../events/manifest-events.js';
import { projector, writes } from '../projector.js';

const sql = {
  insertVersion: `INSERT INTO manifest_versions (manifest_id, version, organization_id, name, purpose, retention, slots, published_at)
                  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  upsertHead: `INSERT INTO manifests (manifest_id, organization_id, name, latest_version, created_at) VALUES ($1, $2, $3, $4, $5)
               ON CONFLICT (manifest_id) DO UPDATE SET latest_version = GREATEST(manifests.latest_version, EXCLUDED.latest_version)`,
};

export const manifestsProjector = projector({
  name: 'manifests',
  version: 2,
  schemaSql: readFileSync(new URL('./manifests.sql', import.meta.url), 'utf8'),
  events: manifestEvents,
  on: {
    ManifestPublished: writes(({ data: d }) => [
      [
        sql.insertVersion,
        [d.manifestId, d.version, d.organizationId, d.name, d.purpose, d.retention, JSON.stringify(d.slots), d.publishedAt],
      ],
      [sql.upsertHead, [d.manifestId, d.organizationId, d.name, d.version, d.publishedAt]],
    ]),
  },
});
