import type { ConsentReceiptIssuer, ConsentReceiptView } from '../consent-receipts/consent-receipts.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EntityService } from '../entities/index.js';
import type { Caller, IdentityService, Me } from '../identity/identity-service.js';
import type { HistoryEntry, PersonRequest, PersonRequests } from '../requests/index.js';
import type { RequestHistory } from '../requests/request-history.js';
import type { Receipt } from '../requests/person-requests.js';
import { exportResource, type ExportedResource, type ResourceDeps } from './resource-export.js';

/** One line of the archive (JSON lines): what it holds is named by `kind`. */
export type ExportLine =
  | { readonly kind: 'export'; readonly format: 1; readonly createdAt: string }
  | { readonly kind: 'account'; readonly account: Me }
  | { readonly kind: 'entity'; readonly entity: { readonly entityId: string; readonly name: string; readonly role: string } }
  | ExportedResource
  | { readonly kind: 'request'; readonly request: PersonRequest }
  | { readonly kind: 'receipt'; readonly receipt: Receipt }
  | { readonly kind: 'history'; readonly requestId: string; readonly entries: HistoryEntry[] }
  | {
      readonly kind: 'consentReceipts';
      readonly requestId: string;
      readonly issuer: string;
      readonly receipts: readonly ConsentReceiptView[];
    }
  | { readonly kind: 'end'; readonly lines: number };

export type ExportDeps = ResourceDeps & {
  readonly readModels: SqlExecutor;
  readonly identities: Pick<IdentityService, 'me'>;
  readonly entities: Pick<EntityService, 'list'>;
  readonly requests: Pick<PersonRequests, 'mine' | 'receipts'>;
  readonly history: Pick<RequestHistory, 'forPerson'>;
  /** Contract §14: each request's signed consent receipts, the same the person reads with user.consentReceipts. */
  readonly consentReceipts: Pick<ConsentReceiptIssuer, 'ofRequest'>;
  readonly now: () => Date;
};

const resourcesOf = `SELECT resource_id::text AS resource_id, deleted_at IS NOT NULL AS deleted FROM rm.documents WHERE vault_id = $1
                     UNION ALL SELECT resource_id::text AS resource_id, false AS deleted FROM rm.files WHERE vault_id = $1`;

/** What the organizations did with the person's records (contract §9): keeps (discarded too), corrections, candidate reads, deletions. */
const ABOUT_RECORDS = new Set(['AdoptionPended', 'AdoptionDiscarded', 'CopyKept', 'CopyCorrected', 'CopyDeleted', 'ReceiptWritten']);

/**
 * R-EXP-01: everything the service holds about the caller, one JSON value per line, produced
 * lazily so the archive streams whatever its size (R-EXP-03: a record's versions, and a file's
 * bytes, are read while its line is written). Only the caller's own vault is opened, and the
 * organizations' side keeps to the caller's own records, with members named by pseudonym as in
 * user.requestHistory (R-HIST-03): their addresses are another person's data. Each request's
 * consent receipts (contract §14) follow its history, as the person reads them. The last line
 * counts the lines before it, so a download cut short is told from a whole one.
 */
export async function* exportLines(deps: ExportDeps, caller: Caller): AsyncGenerator<ExportLine> {
  let lines = 0;
  const line = (l: ExportLine): ExportLine => {
    lines++;
    return l;
  };
  yield line({ kind: 'export', format: 1, createdAt: deps.now().toISOString() });
  yield line({ kind: 'account', account: await deps.identities.me(caller) });
  // The caller's own place in each legal entity; the other members are other people.
  for (const { entityId, name, role } of await deps.entities.list(caller)) yield line({ kind: 'entity', entity: { entityId, name, role } });
  const own = new Set<string>();
  const resources = await deps.readModels.query<{ resource_id: string; deleted: boolean }>(resourcesOf, [caller.identityId]);
  for (const { resource_id, deleted } of resources.rows) {
    own.add(resource_id);
    const resource = await exportResource(deps, { resourceId: resource_id, deleted });
    if (resource) yield line(resource);
  }
  for (const request of await deps.requests.mine(caller)) {
    yield line({ kind: 'request', request });
    const entries = (await deps.history.forPerson(request.requestId, request.organizationId)).filter(
      (e) => ABOUT_RECORDS.has(e.type) && typeof e.versions.resourceId === 'string' && own.has(e.versions.resourceId),
    );
    yield line({ kind: 'history', requestId: request.requestId, entries });
    // Contract §14: the request's receipts as a receipts file (docs/receipts.md), which verifies offline.
    const { issuer, receipts } = await deps.consentReceipts.ofRequest(request.requestId);
    yield line({ kind: 'consentReceipts', requestId: request.requestId, issuer, receipts });
  }
  for (const receipt of await deps.requests.receipts(caller)) yield line({ kind: 'receipt', receipt });
  yield { kind: 'end', lines };
}
