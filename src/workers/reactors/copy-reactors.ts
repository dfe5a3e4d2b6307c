import { eitherOf } from '../../events/decoder.js';
import type { RecordedEvent } from '../../events/envelope.js';
import { formatPosition } from '../../events/position.js';
import { organizationEvents } from '../../events/organization-events.js';
import { requestEvents } from '../../events/request-events.js';
import { resourceEvents } from '../../events/resource-events.js';
import type { JobQueue } from '../queue/queue.js';
import { reactor, type Reactor } from '../reactor.js';

export const DRAIN_QUEUE = 'drain';
export const AUTO_KEEP_QUEUE = 'auto-keep';

/**
 * What a job carries of the event that caused it: its ids, for the events the job's commands write,
 * and its place in the log, so the job first waits for the read models it reads to include it.
 */
const cause = (e: RecordedEvent) => ({
  correlationId: e.metadata.correlationId,
  causationId: e.metadata.eventId,
  position: formatPosition(e.position),
  eventType: e.type,
});

/** R-KEEP-11: a member's sign-in warmed the key, so the organization's pending keeps are drained by a job. */
export function drainOnKeyWarmed(queue: Pick<JobQueue, 'enqueue'>): Reactor {
  return reactor({
    name: 'drain_on_key_warmed',
    events: organizationEvents,
    on: {
      KeyWarmed: (e) => queue.enqueue(DRAIN_QUEUE, `drain-${e.metadata.eventId}`, { organizationId: e.data.organizationId, ...cause(e) }),
    },
  });
}

/**
 * R-KEEP-09, R-PROP-01: on an auto slot the first version is kept when it is granted, and every
 * later one as soon as it exists; on a manual slot a later version opens a proposal. The job finds
 * out which the slot is; the reactor only notices.
 */
export function autoKeepOnNewVersions(queue: Pick<JobQueue, 'enqueue'>): Reactor {
  const job = (e: RecordedEvent, target: { requestId: string; slotId: string } | { resourceId: string; version: number }) =>
    queue.enqueue(AUTO_KEEP_QUEUE, `auto-keep-${e.metadata.eventId}`, { ...target, ...cause(e) });
  return reactor({
    name: 'auto_keep_on_new_versions',
    events: eitherOf(requestEvents, resourceEvents),
    on: {
      SlotGranted: (e) => job(e, { requestId: e.data.requestId, slotId: e.data.slotId }),
      DocumentUpdated: (e) => job(e, { resourceId: e.data.resourceId, version: e.data.version }),
      FileVersionAdded: (e) => job(e, { resourceId: e.data.resourceId, version: e.data.version }),
    },
  });
}
