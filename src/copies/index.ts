/** Copies (R-KEEP-*, R-COPY-*, R-CORR-*, R-RFIL-*, R-ERAS-02): what an organization keeps of a person's records, by job. */
import type { CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { BlobStore } from '../files/blob-store.js';
import type { KeyRow, KeyState } from '../organizations/index.js';
import type { RecordReader } from '../requests/request-records.js';
import type { RequestReads } from '../requests/request-reads.js';
import type { SchemaValidator } from '../schemas/index.js';
import type { VaultKeyring } from '../vaults/keyring.js';
import { OrgAttachments } from './attachments.js';
import { CopyDeletion } from './copy-deletion.js';
import { CopyReads } from './copy-reads.js';
import { CopyCorrections } from './correct-service.js';
import { PendingKeeps } from './drain-service.js';
import { CopyKeeping } from './keep-service.js';
import { SlotAccess } from './slot-access.js';

export type CopiesDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly reads: RequestReads;
  readonly records: RecordReader;
  readonly keyring: VaultKeyring;
  readonly blobs: BlobStore;
  readonly validator: SchemaValidator;
  /** Whether the organization's key is warm now (key-warmth.ts), from its columns read with the organization's request (RequestRow). */
  readonly keyStateOf: (row: KeyRow) => KeyState;
  /** MAX_FILE_BYTES: the largest attachment. */
  readonly maxBytes: number;
  readonly now: () => Date;
};

export type Copies = {
  readonly access: SlotAccess;
  readonly keeping: CopyKeeping;
  readonly drains: PendingKeeps;
  readonly corrections: CopyCorrections;
  readonly reads: CopyReads;
  readonly attachments: OrgAttachments;
  readonly deletion: CopyDeletion;
};

export function openCopies(deps: CopiesDeps): Copies {
  const access = new SlotAccess(deps);
  const keeping = new CopyKeeping({ ...deps, access });
  return {
    access,
    keeping,
    drains: new PendingKeeps({ ...deps, access, keeping }),
    corrections: new CopyCorrections({ ...deps, access }),
    reads: new CopyReads({ ...deps, access }),
    attachments: new OrgAttachments({ ...deps, access }),
    deletion: new CopyDeletion(deps),
  };
}
