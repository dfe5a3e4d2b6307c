import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { FeedEvent } from './client.js';

export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * A receiver's check of a delivery (Standard Webhooks, R-HOOK-02): give it the secret
 * POST /org/v1/webhooks answered (whsec_…), then each delivery's raw body and headers; it answers the
 * event, or throws WebhookVerificationError for a forged, altered or stale (over 5 minutes) one.
 * De-duplicate by the event's `id`: a retried delivery carries the same one.
 */
export function webhookVerifier(secret: string): (body: string | Buffer, headers: WebhookHeaders) => FeedEvent {
  const webhook = new Webhook(secret);
  return (body, headers) => {
    const event: unknown = webhook.verify(body, standardHeaders(headers));
    return event as FeedEvent;
  };
}

/** The three webhook-* headers as one string each, whatever the server framework handed over. */
function standardHeaders(headers: WebhookHeaders): Record<string, string> {
  const get = (name: string): string => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    return (typeof value === 'string' ? value : value?.[0]) ?? '';
  };
  return { 'webhook-id': get('webhook-id'), 'webhook-timestamp': get('webhook-timestamp'), 'webhook-signature': get('webhook-signature') };
}

export { WebhookVerificationError };
