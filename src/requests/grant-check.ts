import type { Caller } from '../identity/identity-service.js';
import { parseId, type Id } from '../ids.js';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import type { SqlExecutor } from '../db/sql.js';
import type { Slot } from '../events/manifest-events.js';
import type { GrantedRecord } from '../events/request-events.js';
import { requestSql as q, type ResourceRow } from './request-queries.js';

/** An id as the person sent it, parsed at the edge: null where it is no UUID (it names nothing); `sent` for the answer. */
export type SentId<K extends string> = { readonly id: Id<K> | null; readonly sent: string };
export type GrantInput = { readonly slotId: SentId<'slot'>; readonly resourceIds: readonly SentId<'resource'>[] };

/** A GraphQL GrantInput, its ids parsed once (R-HTTP-11). */
export function parseGrant(raw: { readonly slotId: string; readonly resourceIds: readonly string[] }): GrantInput {
  const sent = <K extends string>(text: string): SentId<K> => ({ id: parseId<K>(text), sent: text });
  return { slotId: sent<'slot'>(raw.slotId), resourceIds: raw.resourceIds.map((r) => sent<'resource'>(r)) };
}
export type CheckedGrant = { readonly slotId: string; readonly multiple: boolean; readonly records: GrantedRecord[] };

/**
 * The grant rules (R-REQ-22), checked against the read models before the decider runs: the slot
 * is one of the PINNED version, and each resource is the caller's own (slot without subject) or
 * of an entity the caller manages (slot with subject), of the slot's kind and target. A resource
 * the caller cannot answer for is not found, exactly as an unknown id (no existence oracle).
 */
export async function checkGrant(
  readModels: SqlExecutor,
  caller: Caller,
  slots: readonly Slot[],
  grant: GrantInput,
): Promise<CheckedGrant | Refusal> {
  const slot = slots.find((s) => s.slotId === grant.slotId.id);
  if (!slot) return refuse('not_found', `no slot ${grant.slotId.sent} in the manifest version this request pins`);
  if (grant.resourceIds.length === 0) return refuse('invalid_request', `grant for slot ${slot.slotId} names no resource`);
  const records: GrantedRecord[] = [];
  const distinct = new Map(grant.resourceIds.map((r) => [r.id ?? r.sent, r]));
  for (const resource of distinct.values()) {
    const record = await checkResource(readModels, caller, slot, resource);
    if (isRefusal(record)) return record;
    records.push(record);
  }
  return { slotId: slot.slotId, multiple: slot.multiple, records };
}

async function checkResource(
  readModels: SqlExecutor,
  caller: Caller,
  slot: Slot,
  { id: resourceId, sent }: SentId<'resource'>,
): Promise<GrantedRecord | Refusal> {
  const unknown = refuse('not_found', `no resource ${resourceId ?? sent} in your vault or a legal entity you manage`);
  if (resourceId === null) return unknown;
  const resource = (await readModels.query<ResourceRow>(q.resource, [resourceId])).rows[0];
  if (!resource) return unknown;
  const own = resource.vault_id === caller.identityId;
  const managed = !own && (await readModels.query(q.managerOf, [resource.vault_id, caller.email])).rowCount > 0;
  if (!own && !managed) return unknown;
  if (slot.subject === null && !own)
    return refuse('invalid_request', `slot ${slot.slotId} asks about you: resource ${resourceId} belongs to a legal entity`);
  if (slot.subject !== null && !managed)
    return refuse('invalid_request', `slot ${slot.slotId} asks about a legal entity (${slot.subject}): resource ${resourceId} is your own`);
  const kindProblem = mismatch(slot, resource);
  if (kindProblem) return refuse('invalid_request', `resource ${resourceId} does not fit slot ${slot.slotId}: ${kindProblem}`);
  return { resourceId, entityId: own ? null : resource.vault_id };
}

/** A schema slot names a built-in by name; a document names it by its canonical URL, `…/core/<Name>.json`. */
function mismatch(slot: Slot, resource: ResourceRow): string | null {
  if (slot.kind === 'file') return resource.kind === 'file' ? null : 'the slot takes files, not documents';
  if (resource.kind !== 'document') return `the slot takes ${slot.target} documents, not files`;
  const name = resource.schema_ref?.match(/\/core\/([^/]+)\.json$/)?.[1] ?? null;
  return name === slot.target ? null : `the slot takes ${slot.target} documents, this one's schema is ${resource.schema_ref ?? 'embedded'}`;
}
