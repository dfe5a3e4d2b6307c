import type { Participant } from '../events/copy-events.js';
import { iso } from '../organizations/member.js';
import type { OrgFileVersionRow } from './copy-queries.js';

/** One version of an organization file (contract §4). */
export type OrgFileVersion = {
  readonly orgVersion: number;
  readonly adoptionId?: string;
  readonly sourceVersion?: number;
  readonly fileName: string;
  readonly mimeType: string;
  readonly fileSize: number;
  readonly keptAt: string;
};

/** An organization file of a request: a kept file's chain, or the organization's own attachment. */
export type OrgFile = {
  readonly orgFileId: string;
  readonly origin: 'copy' | 'attachment';
  readonly slotId?: string;
  readonly sourceResourceId?: string;
  readonly participant?: Participant;
  readonly versions: readonly OrgFileVersion[];
};

/** R-RFIL-01: each file with its versions newest first, the file whose newest version is newest first. */
export function orgFilesOf(kept: readonly OrgFileVersionRow[], attached: readonly OrgFileVersionRow[]): OrgFile[] {
  const files = new Map<string, { file: Omit<OrgFile, 'versions'>; versions: OrgFileVersion[] }>();
  const add = (row: OrgFileVersionRow, origin: OrgFile['origin']) => {
    const entry = files.get(row.org_file_id) ?? { file: fileOf(row, origin), versions: [] };
    entry.versions.push({
      orgVersion: row.org_version,
      ...(row.adoption_id === undefined ? {} : { adoptionId: row.adoption_id }),
      ...(row.source_version === undefined ? {} : { sourceVersion: row.source_version }),
      fileName: row.file_name,
      mimeType: row.mime_type,
      fileSize: Number(row.file_size),
      keptAt: iso(row.kept_at),
    });
    files.set(row.org_file_id, entry);
  };
  kept.forEach((r) => add(r, 'copy'));
  attached.forEach((r) => add(r, 'attachment'));
  const newestFirst = (a: OrgFileVersion, b: OrgFileVersion) => b.keptAt.localeCompare(a.keptAt) || b.orgVersion - a.orgVersion;
  return [...files.values()]
    .map(({ file, versions }) => ({ ...file, versions: versions.sort(newestFirst) }))
    .sort((a, b) => newestFirst(a.versions[0]!, b.versions[0]!));
}

function fileOf(row: OrgFileVersionRow, origin: OrgFile['origin']): Omit<OrgFile, 'versions'> {
  if (origin === 'attachment') return { orgFileId: row.org_file_id, origin };
  return {
    orgFileId: row.org_file_id,
    origin,
    ...(row.slot_id === undefined ? {} : { slotId: row.slot_id }),
    ...(row.source_resource_id === undefined ? {} : { sourceResourceId: row.source_resource_id }),
    participant: (row.participant ?? null) as Participant,
  };
}
