import { storedKeysJson, type StoredKeyJson } from '../vaults/keyring.js';
import type { RequestStateName } from './request-status.js';

const summary = `r.request_id::text AS request_id, r.organization_id::text AS organization_id, o.name AS organization_name,
  r.manifest_id::text AS manifest_id, v.name AS manifest_name, r.manifest_version, r.recipient_email, r.initiated_by,
  r.initiating_client_id, r.invitation_expires_at, r.created_at, r.phase, r.accepted_at, r.retention_ms, v.purpose, v.retention, v.slots,
  o.key_warm_until, o.key_warmed_at`;
const from = `rm.requests r
  JOIN rm.manifest_versions v ON v.manifest_id = r.manifest_id AND v.version = r.manifest_version
  JOIN rm.organizations o ON o.organization_id = r.organization_id`;
/**
 * A grant with where its resource stands now (R-REQ-17): the version of the live document or the
 * file, null when it no longer resolves, and the vault holding it. Read with the grant, so a
 * record's status takes no query of its own, and grant and version come from one snapshot.
 * The document is joined by id alone and a deleted one counts as absent in the select: with
 * `deleted_at IS NULL` in the join, the planner could take the partial index of live documents,
 * and on a table never analyzed it does, reading every live document for each grant
 * (docs/decisions.md, "Read models").
 */
const grantColumns = `g.request_id::text AS request_id, g.slot_id::text AS slot_id, g.resource_id::text AS resource_id,
  g.entity_id::text AS entity_id,
  COALESCE(CASE WHEN d.deleted_at IS NULL THEN d.version END, f.version) AS version,
  COALESCE(CASE WHEN d.deleted_at IS NULL THEN d.vault_id END, f.vault_id)::text AS vault_id`;
const grantSources = `FROM rm.request_grants g
  LEFT JOIN rm.documents d ON d.resource_id = g.resource_id
  LEFT JOIN rm.files f ON f.resource_id = g.resource_id`;
const grant = `SELECT ${grantColumns} ${grantSources}`;
/** Whether the read models hold a version of the grant's copy chain (GrantRow.chained). */
const chained = `EXISTS (SELECT 1 FROM rm.adoptions a WHERE a.request_id = g.request_id AND a.slot_id = g.slot_id
  AND a.source_resource_id = g.resource_id AND a.state = 'materialized') AS chained`;
const newestFirst = `ORDER BY r.created_at DESC, r.sent_commit DESC, r.sent_prepare DESC`;
/**
 * §10.6: the rows after request `id` (a placeholder) in newestFirst's order, compared on the order's
 * own keys (the log position makes them unique); a request not of the same organization joins nothing.
 */
const after = (id: string) => `JOIN rm.requests c ON c.request_id = ${id}::uuid AND c.organization_id = r.organization_id
  AND r.created_at <= c.created_at AND (r.created_at, r.sent_commit, r.sent_prepare) < (c.created_at, c.sent_commit, c.sent_prepare)`;
/**
 * R-REQ-11 in SQL, the state evaluateState (request-status.ts) reads at `now` (a placeholder): a pending
 * invitation at or past its window's end is expired, and so is an active or suspended connection at or
 * past the accepted retention; a null acceptance or retention compares to null, so the phase stands.
 */
const stateAt = (now: string) => `CASE r.phase
    WHEN 'pending' THEN CASE WHEN r.invitation_expires_at <= ${now} THEN 'expired' ELSE 'pending' END
    WHEN 'cancelled' THEN 'rejected_by_sender'
    WHEN 'rejected' THEN 'rejected_by_recipient'
    WHEN 'revoked' THEN 'revoked'
    ELSE CASE WHEN r.accepted_at + r.retention_ms * interval '1 millisecond' <= ${now} THEN 'expired' ELSE r.phase END
  END`;

/** What narrows the organization's list (R-REQ-28, R-REQ-32); null narrows nothing. */
export type ListFilter = {
  readonly email: string | null;
  readonly states: readonly RequestStateName[] | null;
  /** The clock the states are read at: the one the answered summaries are read at too. */
  readonly now: Date;
};

/**
 * A page of the organization's requests (§10.6): the WHERE holds only the filters given, each a plain
 * comparison, so the owner's or the recipient's index serves it as it would a query written for it alone.
 */
export function organizationPage(organizationId: string, filter: ListFilter, afterId: string | null, limit: number): [string, unknown[]] {
  const params: unknown[] = [organizationId];
  const param = (value: unknown) => `$${params.push(value)}`;
  const where = ['r.organization_id = $1'];
  if (filter.email !== null) where.push(`r.recipient_email = ${param(filter.email)}`);
  if (filter.states !== null)
    where.push(`${stateAt(`${param(filter.now.toISOString())}::timestamptz`)} = ANY(${param([...filter.states])}::text[])`);
  const start = afterId === null ? '' : after(param(afterId));
  return [`SELECT ${summary} FROM ${from} ${start} WHERE ${where.join(' AND ')} ${newestFirst} LIMIT ${param(limit)}`, params];
}

/**
 * A live document's newest version as the documents read model holds it (GrantRow.document): what a
 * keep of that version seals again, read with its grant instead of from the resource's stream.
 */
const newestDocument = (which: string) => `CASE WHEN d.deleted_at IS NULL AND ${which} THEN json_build_object('version', d.version,
  'vaultId', d.vault_id, 'name', d.name, 'schemaRef', d.schema_ref, 'sealedData', d.sealed_data) END AS document`;

/**
 * The stored keys a keep of the grant's record seals and opens with: the vault holding the record's
 * newest version, and the record's copy chain's own once the read models show the chain (its
 * orgResourceId, from an adoption that reached it).
 */
const grantKeys = storedKeysJson([
  'COALESCE(CASE WHEN d.deleted_at IS NULL THEN d.vault_id END, f.vault_id)',
  `(SELECT a.org_resource_id FROM rm.adoptions a WHERE a.request_id = g.request_id AND a.slot_id = g.slot_id
     AND a.source_resource_id = g.resource_id AND a.org_resource_id IS NOT NULL LIMIT 1)`,
]);

/** Whether the grant's record has a keep of its newest document pending on the grant's slot. */
const pendingNewest = `EXISTS (SELECT 1 FROM rm.adoptions a WHERE a.request_id = g.request_id AND a.slot_id = g.slot_id
  AND a.source_resource_id = g.resource_id AND a.state = 'pending' AND a.source_version = d.version)`;

/**
 * oneOfOrganization ($1, $2) with the grants of one of its slots (`slot`, an expression) as
 * grantsOfSlot orders them, and `columns` more, in one query. Each grant says whether its record's
 * copy chain has a version yet (GrantRow.chained), and the grants a command keeps or shows
 * (`newestOf`, a condition on the grant `g`) their newest document and the keys a keep of it takes
 * (GrantRow.keys). A sorted subquery feeds json_agg in its order.
 */
export const withSlotGrants = (slot: string, columns = '', newestOf: string | null = null): string => `SELECT ${summary}${columns},
    COALESCE((SELECT json_agg(x) FROM (SELECT ${grantColumns}, ${chained}${
      newestOf === null ? '' : `, ${newestDocument(newestOf)}, CASE WHEN ${newestOf} THEN ${grantKeys} END AS keys`
    }
      ${grantSources}
      WHERE g.request_id = r.request_id AND g.slot_id = ${slot} AND g.withdrawn_at IS NULL
      ORDER BY g.granted_at, g.resource_id) x), '[]') AS grants
  FROM ${from} WHERE r.request_id = $2 AND r.organization_id IS NOT DISTINCT FROM $1::uuid`;

/** Read-model queries of the requests projector; each names its owner (organization or recipient), so a foreign id finds nothing. */
export const requestSql = {
  /**
   * One request of its owner: found by its id, then checked against the owner. IS NOT DISTINCT FROM
   * (the same test for these non-null values) is never an index condition, so the lookup always
   * takes the primary key: with `=`, a table never analyzed (autovacuum off, or not yet come)
   * costs both indexes alike, and the planner takes the owner's, reading every request of the
   * owner to find one (docs/decisions.md, "Read models").
   */
  oneOfOrganization: `SELECT ${summary} FROM ${from} WHERE r.request_id = $2 AND r.organization_id IS NOT DISTINCT FROM $1::uuid`,
  ofRecipient: `SELECT ${summary} FROM ${from} WHERE r.recipient_email = $1 ${newestFirst}`,
  /** As oneOfOrganization, for the recipient. */
  oneOfRecipient: `SELECT ${summary} FROM ${from} WHERE r.request_id = $2 AND r.recipient_email IS NOT DISTINCT FROM $1::text`,
  /** oneOfOrganization with the grants of slot $3 and their newest documents, in one query: a keep's first read (SlotAccess.slotIn). */
  slotOfOrganization: withSlotGrants('$3', '', 'true'),
  /** slotOfOrganization with the stored key of vault $4: a correct's, its chain's (SlotAccess.slotIn). */
  slotOfOrganizationWithKey: withSlotGrants('$3', `, ${storedKeysJson(['$4::uuid'])} AS keys`),
  grantsOf: `${grant} WHERE g.request_id = ANY($1::uuid[]) AND g.withdrawn_at IS NULL ORDER BY g.granted_at, g.resource_id`,
  grantsOfSlot: `${grant} WHERE g.request_id = $1 AND g.slot_id = $2 AND g.withdrawn_at IS NULL ORDER BY g.granted_at, g.resource_id`,
  /** The request's ($1) grants, those with a keep of their newest document pending carrying that document: what a drain keeps. */
  grantsToDrain: `SELECT ${grantColumns}, ${newestDocument(pendingNewest)} ${grantSources}
                  WHERE g.request_id = $1 AND g.withdrawn_at IS NULL ORDER BY g.granted_at, g.resource_id`,
  /** Where a resource stands now: a live document or a file, with the vault that holds it. */
  resource: `SELECT 'document' AS kind, vault_id::text AS vault_id, version, schema_ref FROM rm.documents
             WHERE resource_id = $1 AND deleted_at IS NULL
             UNION ALL
             SELECT 'file' AS kind, vault_id::text AS vault_id, version, NULL AS schema_ref FROM rm.files WHERE resource_id = $1`,
  managerOf: `SELECT 1 FROM rm.entity_members WHERE entity_id = $1 AND email = $2 AND role = 'MANAGER'`,
  /** Of those entities, the ones the address manages now. */
  managedAmong: `SELECT entity_id::text AS entity_id FROM rm.entity_members
                 WHERE entity_id = ANY($1::uuid[]) AND email = $2 AND role = 'MANAGER'`,
  manifestHead: `SELECT organization_id::text AS organization_id, latest_version FROM rm.manifests WHERE manifest_id = $1`,
  appOf: `SELECT 1 FROM rm.organization_apps WHERE client_id = $1 AND organization_id = $2`,
};

export type RequestRow = {
  request_id: string;
  organization_id: string;
  organization_name: string;
  manifest_id: string;
  manifest_name: string;
  manifest_version: number;
  recipient_email: string;
  initiated_by: 'org' | 'recipient';
  initiating_client_id: string | null;
  invitation_expires_at: Date | string;
  created_at: Date | string;
  phase: string;
  accepted_at: Date | string | null;
  retention_ms: string | number | null;
  purpose: string;
  retention: string;
  slots: unknown;
  /** The owning organization's key warmth, read with the request: a command on it needs both (KeyRow). */
  key_warm_until: Date | string | null;
  key_warmed_at: Date | string | null;
};
export type GrantRow = {
  request_id: string;
  slot_id: string;
  resource_id: string;
  entity_id: string | null;
  /** The resource's version now; null when it no longer resolves. */
  version: number | null;
  /** The vault holding the resource; null when it no longer resolves. */
  vault_id: string | null;
  /**
   * Read with a slot (slotOfOrganization), or by a drain from the request's adoptions: whether
   * the read models hold a version of the record's copy chain. False lets a keep take the chain as
   * empty without reading it; the append's compare-and-set refuses that guess if the read models
   * were behind (recallFolded).
   */
  chained?: boolean;
  /**
   * Read with the grants a command keeps or shows (withSlotGrants' `newestOf`, grantsToDrain): the
   * document's newest version; null when it is no live document, or not one the command asked for.
   */
  document?: NewestDocument | null;
  /**
   * Read with the grants a command keeps or shows (withSlotGrants' `newestOf`): the stored keys of
   * the record's vault and of its copy chain, those that have one (VaultKeyring.keysRead); null when
   * neither has.
   */
  keys?: readonly StoredKeyJson[] | null;
};
/** A live document's newest version in the documents read model: its content, still sealed with its vault's key. */
export type NewestDocument = {
  readonly version: number;
  readonly vaultId: string;
  readonly name: string;
  readonly schemaRef: string | null;
  readonly sealedData: string;
};
export type ResourceRow = { kind: 'document' | 'file'; vault_id: string; version: number; schema_ref: string | null };
