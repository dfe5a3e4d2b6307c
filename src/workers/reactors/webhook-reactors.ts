import type { RecordedEvent } from '../../events/envelope.js';
import type { Position } from '../../events/position.js';
import { webhookEvents } from '../../events/webhook-events.js';
import { eventsFeedProjector } from '../../projections/events-feed/events-feed.js';
import type { Deliveries } from '../../webhooks/index.js';
import { reactor, type Reactor } from '../reactor.js';

/** A place in the log as text, the same from a Position and from a row of the feed. */
const placeOf = (p: { readonly commit: bigint | string; readonly prepare: bigint | string }) => `${p.commit}.${p.prepare}`;

/**
 * R-HOOK-04: a log event that gave feed events to an organization with a webhook that delivers
 * brings that organization's webhooks up to its feed (Deliveries.fanOut). The feed follows the log
 * on its own, so each page first waits for it; one lookup a page finds the few events that matter.
 */
export function deliverFeedEvents(
  deliveries: Pick<Deliveries, 'touched' | 'fanOut'>,
  feedCaughtUp: (position: Position) => Promise<void>,
): Reactor {
  const organizationsAt = async (event: RecordedEvent) =>
    new Set((await deliveries.touched(event.position, event.position)).map((r) => r.organization_id));
  return {
    name: 'webhook_deliveries',
    types: new Set(Object.keys(eventsFeedProjector.on)),
    worthReacting: async (events) => {
      const [first, last] = [events[0]!, events.at(-1)!];
      await feedCaughtUp(last.position);
      const places = new Set((await deliveries.touched(first.position, last.position)).map(placeOf));
      return events.filter((e) => places.has(placeOf(e.position)));
    },
    react: async (event) => {
      for (const organizationId of await organizationsAt(event)) await deliveries.fanOut(organizationId);
    },
  };
}

/** R-HOOK-06: a member's test event and retry, read from the log, so a crash between the request and its job loses neither. */
export function deliverOnRequest(deliveries: Pick<Deliveries, 'deliverTest' | 'retry'>): Reactor {
  return reactor({
    name: 'webhook_requests',
    events: webhookEvents,
    on: {
      WebhookTestRequested: (e) => deliveries.deliverTest(e.data, e.metadata.occurredAt),
      WebhookRetryRequested: (e) => deliveries.retry(e.data.webhookId, e.data.eventId, e.metadata.eventId),
    },
  });
}
