import { refuse, type Refusal } from '../commands/refusal.js';
import type { SqlExecutor } from '../db/sql.js';
import type { RequestId } from '../ids.js';
import type { StoredKeyJson } from '../vaults/keyring.js';
import { organizationPage, requestSql as q, type GrantRow, type ListFilter, type RequestRow } from './request-queries.js';

/** Reads of the requests read model; they never append, so reading writes no receipt (R-REQ-08). */
export class RequestReads {
  constructor(private readonly readModels: SqlExecutor) {}

  /** At most `limit` of the organization's requests the filter lets through, newest first, after request `after` when given. */
  async ofOrganization(organizationId: string, filter: ListFilter, after: string | null, limit: number): Promise<RequestRow[]> {
    const [sql, params] = organizationPage(organizationId, filter, after, limit);
    return (await this.readModels.query<RequestRow>(sql, params)).rows;
  }

  /** The one guard of the organization plane: a request the organization owns, else 404 (a foreign one is not told apart). */
  async owned(organizationId: string, requestId: RequestId): Promise<RequestRow | Refusal> {
    return (await this.oneOfOrganization(organizationId, requestId)) ?? refuse('not_found', 'no such request');
  }

  async oneOfOrganization(organizationId: string, requestId: string): Promise<RequestRow | null> {
    return (await this.readModels.query<RequestRow>(q.oneOfOrganization, [organizationId, requestId])).rows[0] ?? null;
  }

  /**
   * A request the organization owns with the grants of one of its slots, read together, and with
   * the stored key of vault `keyOf` when given; null when it owns no such request.
   */
  async slotOfOrganization(
    organizationId: string,
    requestId: string,
    slotId: string,
    keyOf?: string,
  ): Promise<{ readonly row: RequestRow; readonly grants: GrantRow[]; readonly keys?: readonly StoredKeyJson[] } | null> {
    type Found = RequestRow & { grants: GrantRow[]; keys?: StoredKeyJson[] | null };
    const found = (
      keyOf === undefined
        ? await this.readModels.query<Found>(q.slotOfOrganization, [organizationId, requestId, slotId])
        : await this.readModels.query<Found>(q.slotOfOrganizationWithKey, [organizationId, requestId, slotId, keyOf])
    ).rows[0];
    if (!found) return null;
    const { grants, keys, ...row } = found;
    return keyOf === undefined ? { row, grants } : { row, grants, keys: keys ?? [] };
  }

  async ofRecipient(email: string): Promise<RequestRow[]> {
    return (await this.readModels.query<RequestRow>(q.ofRecipient, [email])).rows;
  }

  async oneOfRecipient(email: string, requestId: string): Promise<RequestRow | null> {
    return (await this.readModels.query<RequestRow>(q.oneOfRecipient, [email, requestId])).rows[0] ?? null;
  }

  async grants(requestIds: readonly string[]): Promise<GrantRow[]> {
    if (requestIds.length === 0) return [];
    return (await this.readModels.query<GrantRow>(q.grantsOf, [requestIds])).rows;
  }

  /** The request's grants, with the newest document of each whose keep of it is pending (GrantRow.document): a drain's. */
  async grantsToDrain(requestId: string): Promise<GrantRow[]> {
    return (await this.readModels.query<GrantRow>(q.grantsToDrain, [requestId])).rows;
  }

  /** One slot's grants: both ids are uuids (a caller validates them first). */
  async grantsOfSlot(requestId: string, slotId: string): Promise<GrantRow[]> {
    return (await this.readModels.query<GrantRow>(q.grantsOfSlot, [requestId, slotId])).rows;
  }
}
