import { fold } from '../commands/decider.js';
import { consentReceiptDecider } from '../commands/consent-receipts/consent-receipt-decider.js';
import { isRefusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import { consentReceiptStream } from '../events/consent-receipt-events.js';
import { readDecoded, type Recorded } from '../events/decoder.js';
import { manifestStreams } from '../events/manifest-events.js';
import { organizationStreams } from '../events/organization-events.js';
import { requestStream, type RequestEvent } from '../events/request-events.js';
import type { ReceiptKeys } from './receipt-keys.js';
import { receiptPayload, sha256 } from './receipt-payload.js';
import { receiptIdOf } from './receipt-id.js';

/** A receipt as the person's and the organization's reads answer it, oldest first (contract §14). */
export type ConsentReceiptView = {
  readonly seq: number;
  readonly receiptId: string;
  readonly issuedAt: string;
  readonly event: string;
  readonly status: string;
  readonly jws: string;
};

/** Every receipt of a request, with the issuer whose keys verify them: what the reads answer and the pages download. */
export type ConsentReceipts = { readonly issuer: string; readonly requestId: string; readonly receipts: readonly ConsentReceiptView[] };

export type ConsentReceiptDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly keys: ReceiptKeys;
  /** BASE_URL: every receipt's `iss`. */
  readonly issuer: string;
};

type Row = { seq: number; receipt_id: string; issued_at: Date | string; cause_type: string; status: string; jws: string };

/**
 * Signed consent receipts (contract §14, docs/receipts.md): issued by the consent_receipts reactor
 * from the log, one per consent transition, chained per request; read by the person and the
 * organization alike.
 */
export class ConsentReceiptIssuer {
  constructor(private readonly deps: ConsentReceiptDeps) {}

  /** The receipt keys' public halves, every generation: /.well-known/jwks.json publishes them. */
  get jwks(): ReceiptKeys['jwks'] {
    return this.deps.keys.jwks;
  }

  /**
   * The receipt of a consent transition: the next in its request's chain. A transition receipted
   * already issues nothing (the reactor ran it before a crash, or another instance did).
   */
  async issue(cause: Recorded<RequestEvent>): Promise<void> {
    const requestId = cause.data.requestId;
    const stream = consentReceiptStream(requestId);
    const chain = fold(consentReceiptDecider, await readDecoded(this.deps.store, stream));
    if (chain.causes.has(cause.metadata.eventId)) return;
    const events = await readDecoded(this.deps.store, requestStream(requestId), 0, cause.revision + 1);
    const sent = events.find((e) => e.type === 'RequestSent');
    if (!sent) throw new Error(`request ${requestId} has no RequestSent before ${cause.type}`);
    const { organizationId, manifestId, manifestVersion } = sent.data;
    const published = (await readDecoded(this.deps.store, manifestStreams.manifest(manifestId))).find(
      (e) => e.type === 'ManifestPublished' && e.data.version === manifestVersion,
    );
    const created = (await readDecoded(this.deps.store, organizationStreams.organization(organizationId), 0, 1))[0];
    if (!published || created?.type !== 'OrganizationCreated')
      throw new Error(`request ${requestId}: its manifest version or organization is missing`);
    const seq = chain.seq + 1;
    // The receipt's id derives from its cause: the same transition always has the same receipt id.
    const receiptId = receiptIdOf(cause.metadata.eventId);
    const payload = receiptPayload(events, {
      issuer: this.deps.issuer,
      receiptId,
      seq,
      prev: chain.digest,
      organizationName: created.data.name,
      manifest: published.data,
    });
    const jws = await this.deps.keys.sign(payload);
    const receipt = {
      requestId,
      receiptId,
      seq,
      digest: sha256(jws),
      causeEventId: cause.metadata.eventId,
      causeType: cause.type,
      status: payload.status,
      issuedAt: cause.metadata.occurredAt,
      jws,
    };
    const context = {
      occurredAt: cause.metadata.occurredAt,
      actor: { kind: 'system' as const, id: 'consent-receipts' },
      correlationId: cause.metadata.correlationId,
      causationId: cause.metadata.eventId,
    };
    const done = await handle(
      this.deps,
      stream,
      consentReceiptDecider,
      { type: 'IssueConsentReceipt', data: { receipt, prev: chain.digest } },
      { context },
    );
    // The reactor runs the event again: the next try signs for the chain as it then stands.
    if (isRefusal(done)) throw new Error(`consent receipt of ${cause.type} on ${requestId}: ${done.message}`);
  }

  /** Every receipt of the request, oldest first; the caller's right to see the request is checked by whoever calls. */
  async ofRequest(requestId: string): Promise<ConsentReceipts> {
    const rows = (
      await this.deps.readModels.query<Row>(
        `SELECT seq, receipt_id::text AS receipt_id, issued_at, cause_type, status, jws FROM rm.consent_receipts
         WHERE request_id = $1 ORDER BY seq`,
        [requestId],
      )
    ).rows;
    return {
      issuer: this.deps.issuer,
      requestId,
      receipts: rows.map((r) => ({
        seq: r.seq,
        receiptId: r.receipt_id,
        issuedAt: new Date(r.issued_at).toISOString(),
        event: r.cause_type,
        status: r.status,
        jws: r.jws,
      })),
    };
  }
}
