import type { CopyKept, KeptKind, Participant } from '../events/copy-events.js';
import type { JsonValue } from '../events/envelope.js';
import { iso } from '../organizations/member.js';
import type { AdoptionRow } from './copy-queries.js';

/** An Adoption (R-KEEP-12): a pending one has no orgResourceId, orgVersion or materializedAt. */
export type Adoption = {
  readonly adoptionId: string;
  readonly slotId: string;
  readonly sourceResourceId: string;
  readonly sourceVersion: number;
  readonly orgResourceId?: string;
  readonly orgVersion?: number;
  readonly resourceType: KeptKind;
  readonly state: 'pending' | 'materialized';
  readonly adoptedAt: string;
  readonly materializedAt?: string;
  readonly participant: Participant;
};

/** A Copy (R-COPY-02): the kept version, and the head of its chain (no currentData for a file). */
export type Copy = {
  readonly adoption: Adoption;
  readonly resourceId: string;
  readonly name: string;
  readonly schemaRef: string | null;
  readonly data: JsonValue;
  readonly orgVersion: number;
  readonly origin: 'copy';
  readonly currentOrgVersion: number;
  readonly currentOrigin: 'copy' | 'correction';
  readonly currentData?: JsonValue;
  readonly participant: Participant;
};

/** The adoption a CopyKept records, as its read model row answers it (adoptionOf). */
export function adoptionOfKept(kept: CopyKept['data']): Adoption {
  return {
    adoptionId: kept.adoptionId,
    slotId: kept.slotId,
    sourceResourceId: kept.sourceResourceId,
    sourceVersion: kept.sourceVersion,
    orgResourceId: kept.orgResourceId,
    orgVersion: kept.orgVersion,
    resourceType: kept.resourceType,
    state: 'materialized',
    adoptedAt: iso(kept.adoptedAt),
    materializedAt: iso(kept.materializedAt),
    participant: kept.participant,
  };
}

export function adoptionOf(row: AdoptionRow): Adoption {
  const participant = (row.participant ?? null) as Participant;
  return {
    adoptionId: row.adoption_id,
    slotId: row.slot_id,
    sourceResourceId: row.source_resource_id,
    sourceVersion: row.source_version,
    ...(row.org_resource_id === null ? {} : { orgResourceId: row.org_resource_id }),
    ...(row.org_version === null ? {} : { orgVersion: row.org_version }),
    resourceType: row.resource_type,
    state: row.state,
    adoptedAt: iso(row.adopted_at),
    ...(row.materialized_at === null ? {} : { materializedAt: iso(row.materialized_at) }),
    participant,
  };
}
