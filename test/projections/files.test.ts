import type { FileUploaded, FileVersionAdded, FileVersionData } from '../../src/events/file-events.js';
import { filesProjector } from '../../src/projections/files/files.js';
import { at, projectorSpecs, uuid } from '../support/projector-spec.js';

const vault = uuid(1);
const passport = uuid(2);

const version = (v: number, fileName: string, mimeType: string, fileSize: number, label: string | null = 'Passport'): FileVersionData => ({
  resourceId: passport,
  vaultId: vault,
  version: v,
  blobId: uuid(100 + v),
  fileName,
  mimeType,
  fileSize,
  label,
});
const uploaded = (d: FileVersionData): FileUploaded => ({ type: 'FileUploaded', data: d });
const added = (d: FileVersionData): FileVersionAdded => ({ type: 'FileVersionAdded', data: d });

const files = 'SELECT resource_id, vault_id, label, version, created_at, updated_at FROM files ORDER BY resource_id';
const versions = `SELECT resource_id, version, blob_id, file_name, mime_type, file_size::int AS file_size, uploaded_at
                  FROM file_versions ORDER BY resource_id, version`;

describe('files read model: every file and each of its versions, bytes elsewhere', () => {
  const given = projectorSpecs();

  it("FileUploaded records the file at version 1 and that version's blob, name, type and size", () =>
    given(filesProjector, at('2026-09-01T10:00:00.000Z', uploaded(version(1, 'passport.pdf', 'application/pdf', 52_431))))
      .thenRows(files, [
        {
          resource_id: passport,
          vault_id: vault,
          label: 'Passport',
          version: 1,
          created_at: '2026-09-01T10:00:00.000Z',
          updated_at: '2026-09-01T10:00:00.000Z',
        },
      ])
      .thenRows(versions, [
        {
          resource_id: passport,
          version: 1,
          blob_id: uuid(101),
          file_name: 'passport.pdf',
          mime_type: 'application/pdf',
          file_size: 52_431,
          uploaded_at: '2026-09-01T10:00:00.000Z',
        },
      ]));

  it('a file may have no label', () =>
    given(filesProjector, uploaded(version(1, 'scan.png', 'image/png', 10, null))).thenRows('SELECT label FROM files', [{ label: null }]));

  it('FileVersionAdded moves the file to the new version and adds it beside the earlier ones, which stay as they were', () =>
    given(
      filesProjector,
      at('2026-09-01T10:00:00.000Z', uploaded(version(1, 'passport.pdf', 'application/pdf', 52_431))),
      at('2026-09-05T10:00:00.000Z', added(version(2, 'passport-2026.png', 'image/png', 1_204_000, "ignored: the label stays the file's"))),
      at('2026-09-07T10:00:00.000Z', added(version(3, 'passport-final.pdf', 'application/pdf', 60_000))),
    )
      .thenRows(files, [
        {
          resource_id: passport,
          vault_id: vault,
          label: 'Passport',
          version: 3,
          created_at: '2026-09-01T10:00:00.000Z',
          updated_at: '2026-09-07T10:00:00.000Z',
        },
      ])
      .thenRows(versions, [
        {
          resource_id: passport,
          version: 1,
          blob_id: uuid(101),
          file_name: 'passport.pdf',
          mime_type: 'application/pdf',
          file_size: 52_431,
          uploaded_at: '2026-09-01T10:00:00.000Z',
        },
        {
          resource_id: passport,
          version: 2,
          blob_id: uuid(102),
          file_name: 'passport-2026.png',
          mime_type: 'image/png',
          file_size: 1_204_000,
          uploaded_at: '2026-09-05T10:00:00.000Z',
        },
        {
          resource_id: passport,
          version: 3,
          blob_id: uuid(103),
          file_name: 'passport-final.pdf',
          mime_type: 'application/pdf',
          file_size: 60_000,
          uploaded_at: '2026-09-07T10:00:00.000Z',
        },
      ]));

  it('the read model holds no bytes: its only columns are the metadata above', () =>
    given(filesProjector, uploaded(version(1, 'passport.pdf', 'application/pdf', 52_431))).thenRows(
      `SELECT table_name, string_agg(column_name, ',' ORDER BY column_name) AS columns FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name <> 'projection_checkpoints' GROUP BY table_name ORDER BY table_name`,
      [
        { table_name: 'file_versions', columns: 'blob_id,file_name,file_size,mime_type,resource_id,uploaded_at,version' },
        { table_name: 'files', columns: 'created_at,label,resource_id,updated_at,vault_id,version' },
      ],
    ));
});
