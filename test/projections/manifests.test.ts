import type { ManifestPublished, Slot } from '../../src/events/manifest-events.js';
import { manifestsProjector } from '../../src/projections/manifests/manifests.js';
import { at, projectorSpecs, uuid } from '../support/projector-spec.js';

const org = uuid(1);
const kyc = uuid(2);
const name: Slot = {
  slotId: uuid(10),
  label: 'Your name',
  group: 'Person',
  subject: null,
  multiple: false,
  kind: 'schema',
  target: 'PersonFullName',
  verbs: ['fill', 'keep'],
  adoption: 'manual',
  required: false,
};
const company: Slot = {
  slotId: uuid(11),
  label: 'Company',
  group: 'Business',
  subject: 'company',
  multiple: true,
  kind: 'schema',
  target: 'LegalEntity',
  verbs: ['keep'],
  adoption: 'auto',
  required: true,
};
const scan: Slot = {
  slotId: uuid(12),
  label: 'Passport',
  group: 'Person',
  subject: null,
  multiple: false,
  kind: 'file',
  target: 'PassportScan',
  verbs: ['edit'],
  adoption: 'manual',
  required: false,
};

const published = (version: number, retention: string, slots: Slot[], publishedAt: string, manifestId = kyc): ManifestPublished => ({
  type: 'ManifestPublished',
  data: { manifestId, organizationId: org, name: 'KYC', version, purpose: `KYC, version ${version}`, retention, slots, publishedAt },
});

const heads = 'SELECT manifest_id, organization_id, name, latest_version, created_at FROM manifests ORDER BY manifest_id';
const versions = `SELECT manifest_id, version, organization_id, name, purpose, retention, slots, published_at
  FROM manifest_versions ORDER BY manifest_id, version`;

describe('manifests read model: every version of every manifest', () => {
  const given = projectorSpecs();

  it('a first ManifestPublished opens the manifest at version 1 and stores that version whole (§11: its purpose too), at its publishing time', () =>
    // occurredAt differs from publishedAt on purpose: the rows carry the decided publishing time.
    given(manifestsProjector, at('2026-10-01T00:00:09.000Z', published(1, 'P365D', [name, company], '2026-10-01T00:00:00.000Z')))
      .thenRows(heads, [{ manifest_id: kyc, organization_id: org, name: 'KYC', latest_version: 1, created_at: '2026-10-01T00:00:00.000Z' }])
      .thenRows(versions, [
        {
          manifest_id: kyc,
          version: 1,
          organization_id: org,
          name: 'KYC',
          purpose: 'KYC, version 1',
          retention: 'P365D',
          slots: [name, company],
          published_at: '2026-10-01T00:00:00.000Z',
        },
      ]));

  it('a later version becomes the newest; every earlier version stays exactly as published, and the creation time stays', () =>
    given(
      manifestsProjector,
      published(1, 'P365D', [name], '2026-10-01T00:00:00.000Z'),
      published(2, 'P30D', [name, scan], '2026-10-02T00:00:00.000Z'),
      published(3, 'PT1S', [scan], '2026-10-03T00:00:00.000Z'),
    )
      .thenRows(heads, [{ manifest_id: kyc, organization_id: org, name: 'KYC', latest_version: 3, created_at: '2026-10-01T00:00:00.000Z' }])
      .thenRows('SELECT version, retention, slots, published_at FROM manifest_versions ORDER BY version', [
        { version: 1, retention: 'P365D', slots: [name], published_at: '2026-10-01T00:00:00.000Z' },
        { version: 2, retention: 'P30D', slots: [name, scan], published_at: '2026-10-02T00:00:00.000Z' },
        { version: 3, retention: 'PT1S', slots: [scan], published_at: '2026-10-03T00:00:00.000Z' },
      ]));

  it('the newest version never goes back, whatever order versions arrive in', () =>
    given(
      manifestsProjector,
      published(2, 'P30D', [name], '2026-10-02T00:00:00.000Z'),
      published(1, 'P365D', [name], '2026-10-01T00:00:00.000Z'),
    )
      .thenRows('SELECT latest_version FROM manifests', [{ latest_version: 2 }])
      .thenRows('SELECT version FROM manifest_versions ORDER BY version', [{ version: 1 }, { version: 2 }]));

  it('manifests are kept apart', () =>
    given(
      manifestsProjector,
      published(1, 'P1D', [name], '2026-10-01T00:00:00.000Z'),
      published(1, 'P2D', [scan], '2026-10-05T00:00:00.000Z', uuid(3)),
      published(2, 'P3D', [name], '2026-10-06T00:00:00.000Z'),
    ).thenRows('SELECT manifest_id, latest_version, created_at FROM manifests ORDER BY manifest_id', [
      { manifest_id: kyc, latest_version: 2, created_at: '2026-10-01T00:00:00.000Z' },
      { manifest_id: uuid(3), latest_version: 1, created_at: '2026-10-05T00:00:00.000Z' },
    ]));
});
