import { deciderOf, type CommandOf } from '../decider.js';
import { createWebhook } from './create-webhook.js';
import { deleteWebhook } from './delete-webhook.js';
import { disableWebhook } from './disable-webhook.js';
import { requestRetry } from './request-retry.js';
import { requestTest } from './request-test.js';
import { evolveWebhook, noWebhook } from './webhook-state.js';

const webhookDecisions = {
  CreateWebhook: createWebhook,
  DeleteWebhook: deleteWebhook,
  DisableWebhook: disableWebhook,
  RequestTest: requestTest,
  RequestRetry: requestRetry,
};

/** Every command on a webhook's stream (`webhook-<id>`). */
export type WebhookCommand = CommandOf<typeof webhookDecisions>;

/** The webhook's one decider: every refusal of a webhook command is in the decision its type names. */
export const webhookDecider = deciderOf(noWebhook, evolveWebhook, webhookDecisions);
