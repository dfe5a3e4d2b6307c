import type { JsonValue } from '../events/envelope.js';
import type { Decrypt } from '../vaults/keyring.js';
import type { CopyVersionRow } from './copy-queries.js';

/** A kept version's seal is bound to its copy and adoption: moved anywhere else it does not open. */
export const keptContext = (orgResourceId: string, adoptionId: string): string => `copy:${orgResourceId}/${adoptionId}`;
export const correctionContext = (orgResourceId: string, orgVersion: number): string => `copy:${orgResourceId}/v${orgVersion}`;
export const attachmentContext = (orgFileId: string, orgVersion: number): string => `attachment:${orgFileId}/v${orgVersion}`;

/** A copy version's data, opened with its chain's own key (R-ERAS-02: one copy can be shredded alone). */
export async function openVersion(version: CopyVersionRow, decrypt: Decrypt): Promise<JsonValue> {
  if (version.sealed_data === null) return null;
  const context =
    version.origin === 'copy' && version.adoption_id !== null
      ? keptContext(version.org_resource_id, version.adoption_id)
      : correctionContext(version.org_resource_id, version.org_version);
  const plaintext = await decrypt(version.org_resource_id, Buffer.from(version.sealed_data, 'base64'), context);
  return JSON.parse(plaintext.toString('utf8')) as JsonValue;
}

/** A file version's metadata, as the copies route shows it in place of data. */
export function fileMeta(version: CopyVersionRow): JsonValue {
  return { label: version.label, fileName: version.file_name, mimeType: version.mime_type, fileSize: Number(version.file_size) };
}
