import type { WebhookEvent } from '../../events/webhook-events.js';
import { refuse, type Refusal } from '../refusal.js';

/** A webhook as its decisions need it: whose it is, and whether it still delivers. */
export type WebhookState =
  | { readonly status: 'none' }
  | { readonly status: 'enabled' | 'disabled'; readonly webhookId: string; readonly organizationId: string }
  | { readonly status: 'deleted'; readonly webhookId: string; readonly organizationId: string };

export type LiveWebhook = Extract<WebhookState, { readonly status: 'enabled' | 'disabled' }>;

export const noWebhook: WebhookState = { status: 'none' };

export function evolveWebhook(state: WebhookState, event: WebhookEvent): WebhookState {
  switch (event.type) {
    case 'WebhookCreated':
      return { status: 'enabled', webhookId: event.data.webhookId, organizationId: event.data.organizationId };
    case 'WebhookDisabled':
      return state.status === 'enabled' ? { ...state, status: 'disabled' } : state;
    case 'WebhookDeleted':
      return state.status === 'none' ? state : { ...state, status: 'deleted' };
    case 'WebhookTestRequested':
    case 'WebhookRetryRequested':
      return state;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/**
 * The webhook as the organization `organizationId` sees it: another organization's, or a deleted
 * one, is not found, exactly as an unknown id (R-HOOK-03).
 */
export function ownedBy(state: WebhookState, organizationId: string): LiveWebhook | Refusal {
  if (state.status === 'none' || state.status === 'deleted' || state.organizationId !== organizationId)
    return refuse('not_found', 'no such webhook');
  return state;
}

/** Test events and retries go only to an endpoint that still delivers (R-HOOK-07). */
export function delivering(webhook: LiveWebhook): LiveWebhook | Refusal {
  return webhook.status === 'enabled'
    ? webhook
    : refuse('conflict', 'the webhook was disabled after 5 days of failed deliveries: create it again to resume');
}

/** One command's decision on a webhook: the webhook decider (webhook-decider.ts) switches to it. */
export type WebhookDecision<C> = (state: WebhookState, command: C) => readonly WebhookEvent[] | Refusal;
export const webhookDecision = <C>(decide: WebhookDecision<C>): WebhookDecision<C> => decide;
