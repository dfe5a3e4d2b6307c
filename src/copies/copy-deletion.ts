import { chainDecider } from '../commands/copies/chain-decider.js';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EventContext } from '../events/envelope.js';
import { chainStream } from '../events/copy-events.js';
import type { BlobStore } from '../files/blob-store.js';
import type { AdoptionId, RequestId } from '../ids.js';
import type { RequestReads } from '../requests/request-reads.js';
import type { VaultKeyring } from '../vaults/keyring.js';

const chainOf = `SELECT slot_id::text AS slot_id, source_resource_id::text AS source_resource_id,
                   org_resource_id::text AS org_resource_id, source_version
                 FROM rm.adoptions WHERE request_id = $1 AND adoption_id = $2 AND state = 'materialized' AND deleted_at IS NULL`;
const blobsOf = `SELECT blob_id::text AS blob_id FROM rm.copy_versions WHERE org_resource_id = $1 AND blob_id IS NOT NULL`;

export type CopyDeletionDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly reads: RequestReads;
  readonly keyring: VaultKeyring;
  readonly blobs: BlobStore;
  readonly now: () => Date;
};

const noSuchCopy = (): Refusal => refuse('not_found', 'no such copy');

/**
 * R-ERAS-02: the organization deletes its copy of a record. The chain's key is erased first and
 * the deletion recorded after: a crash between the two leaves the data shredded and a retry that
 * finds the chain not yet deleted records it, whereas the other order could record a deletion
 * whose key survives. The kept files' blobs go last; without the key they were unreadable already.
 */
export class CopyDeletion {
  constructor(private readonly deps: CopyDeletionDeps) {}

  async delete(
    organizationId: string,
    requestId: RequestId,
    adoptionId: AdoptionId,
    context: EventContext,
  ): Promise<{ deleted: true } | Refusal> {
    const owned = await this.deps.reads.owned(organizationId, requestId);
    const adoption = adoptionId;
    if (isRefusal(owned)) return noSuchCopy();
    const request = owned.request_id;
    const chain = (
      await this.deps.readModels.query<{ slot_id: string; source_resource_id: string; org_resource_id: string; source_version: number }>(
        chainOf,
        [request, adoption],
      )
    ).rows[0];
    if (!chain) return noSuchCopy();
    const blobs = (await this.deps.readModels.query<{ blob_id: string }>(blobsOf, [chain.org_resource_id])).rows;
    await this.deps.keyring.erase(chain.org_resource_id);
    const done = await handle(
      this.deps,
      chainStream(request, chain.slot_id, chain.source_resource_id),
      chainDecider,
      { type: 'DeleteCopy', data: { adoptionId: adoption, sourceVersion: chain.source_version, now: this.deps.now() } },
      { context },
    );
    if (isRefusal(done)) return done;
    for (const { blob_id } of blobs) await this.deps.blobs.delete(blob_id);
    return { deleted: true };
  }
}
