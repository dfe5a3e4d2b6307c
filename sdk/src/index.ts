/**
 * @dss/sdk: the data-sharing service for an organization's own systems (docs/sdk.md). Types come from
 * the service's OpenAPI document (openapi.ts, generated); this layer adds sign-in, retries, paging,
 * problems typed by code, webhook verification, sync(), an app's side of OAuth (PartnerApp), and the
 * offline verification of signed consent receipts.
 */
export type { components, paths, webhooks } from './openapi.js';
export * from './client.js';
export { DssProblem, type Problem, type ProblemCode } from './problem.js';
export type { RetryOptions } from './retry.js';
export { signIn, signInMember, type UserSession } from './sign-in.js';
export { PartnerApp, type PartnerAppOptions, type PartnerConnection, type PartnerRecord, type PartnerTokens } from './partner-app.js';
export { webhookVerifier, WebhookVerificationError, type WebhookHeaders } from './webhooks.js';
export {
  receiptsOf,
  verifyReceipts,
  type ReceiptEventType,
  type ReceiptExpectations,
  type ReceiptFailure,
  type ReceiptKeys,
  type ReceiptPayload,
  type ReceiptSlot,
  type ReceiptStatus,
  type ReceiptsVerdict,
} from './receipts.js';
export { sync, held, type SyncOptions, type SyncResult, type SyncStep } from './sync/sync.js';
export { fileStore, memoryStore } from './sync/store.js';
export { EMPTY_STATE, type Decide, type Held, type Intent, type RequestView, type SyncState, type SyncStore } from './sync/state.js';
