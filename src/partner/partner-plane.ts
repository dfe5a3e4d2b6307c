import { requestDecider } from '../commands/requests/request-decider.js';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import { contentOf, readSourceVersion, type SourceDeps } from '../copies/source-version.js';
import type { EventContext, JsonValue } from '../events/envelope.js';
import { requestStream } from '../events/request-events.js';
import type { RequestId } from '../ids.js';
import type { RequestDetail } from '../requests/org-requests.js';
import type { RecordEntry, RecordReader } from '../requests/request-records.js';
import type { RequestReads } from '../requests/request-reads.js';
import { slotsOf, stateOf } from '../requests/request-view.js';
import type { SchemaValidator } from '../schemas/index.js';

export type PartnerPlaneDeps = CommandDeps & {
  readonly reads: RequestReads;
  readonly records: RecordReader;
  /** The organization plane's request detail: the connection as the organization sees it. */
  readonly detail: (organizationId: string, requestId: RequestId) => Promise<RequestDetail | null>;
  readonly source: SourceDeps;
  readonly validator: Pick<SchemaValidator, 'canonicalRef'>;
  readonly now: () => Date;
};

/** The grant a partner-plane call comes with (its access token, checked): whose app, which request. */
export type PartnerGrant = { readonly organizationId: string; readonly clientId: string; readonly requestId: RequestId };

/** GET /partner/v1/connection: the request and its items, records by alias (contract §13); no keeps, no proposals. */
export type Connection = Pick<RequestDetail, 'request' | 'manifestName' | 'items'>;

/** GET /partner/v1/records/{resourceId}: the record's current version (contract §13). */
export type PartnerRecord = {
  readonly resourceId: string;
  readonly version: number;
  readonly name: string;
  readonly schemaRef: string | null;
  readonly data: JsonValue;
  readonly participant: RecordEntry['participant'];
};

/** The partner plane (contract §13): an app reads the connection it was granted, under the consent gate, each record read receipted. */
export class PartnerPlane {
  constructor(private readonly deps: PartnerPlaneDeps) {}

  /** Whether the request a grant opened is an active connection now: the consent gate of a token's refresh (contract §13). */
  async standing(organizationId: string, requestId: string): Promise<boolean> {
    const row = await this.deps.reads.oneOfOrganization(organizationId, requestId);
    return row !== null && stateOf(row, this.deps.now()) === 'active';
  }

  async connection(grant: PartnerGrant): Promise<Connection | Refusal> {
    const detail = await this.deps.detail(grant.organizationId, grant.requestId);
    if (!detail) return refuse('unauthenticated', 'the grant ended: its request is gone');
    if (detail.request.state !== 'active') return refuse('unauthenticated', `the grant ended: the connection is ${detail.request.state}`);
    return { request: detail.request, manifestName: detail.manifestName, items: detail.items };
  }

  /** The current version of a record granted on the connection, through the consent gate; the read leaves a receipt (ReadRecord). */
  async record(grant: PartnerGrant, resourceId: string, context: EventContext): Promise<PartnerRecord | Refusal> {
    const row = await this.deps.reads.oneOfOrganization(grant.organizationId, grant.requestId);
    if (!row) return refuse('unauthenticated', 'the grant ended: its request is gone');
    const grants = await this.deps.reads.grants([row.request_id]);
    const granted = grants.find((g) => g.resource_id === resourceId);
    const state = stateOf(row, this.deps.now());
    const standing = await this.deps.records.standing(row, grants);
    const slot = granted && slotsOf(row).find((s) => s.slotId === granted.slot_id);
    const entry =
      slot &&
      this.deps.records
        .records(
          row,
          state,
          slot,
          grants.filter((g) => g.slot_id === slot.slotId),
          standing,
        )
        .find((r) => r.resourceId === resourceId);
    const version = entry?.sourceVersion;
    const source = version === undefined ? null : await readSourceVersion(this.deps.source, resourceId, version);
    const facts = this.deps.records.factsFor(state, grants, standing, granted?.slot_id ?? '', resourceId);
    const done = await handle(
      this.deps,
      requestStream(row.request_id),
      requestDecider,
      {
        type: 'ReadRecord',
        data: {
          ...facts,
          resolves: facts.resolves && source !== null,
          now: this.deps.now(),
          requestId: row.request_id,
          receipt: {
            requestId: row.request_id,
            organizationId: grant.organizationId,
            recipientEmail: row.recipient_email,
            resourceId,
            version: version ?? 0,
            clientId: grant.clientId,
            readAt: this.deps.now().toISOString(),
          },
        },
      },
      { context },
    );
    if (isRefusal(done)) return done;
    if (!source || version === undefined) return refuse('not_found', 'no such record on this connection');
    return {
      resourceId,
      version,
      ...contentOf(source, (ref) => this.deps.validator.canonicalRef(ref)),
      participant: entry?.participant ?? null,
    };
  }
}
