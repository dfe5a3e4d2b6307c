import { eitherOf, type Recorded } from '../../events/decoder.js';
import type { RecordedEvent } from '../../events/envelope.js';
import { formatPosition, type Position } from '../../events/position.js';
import { organizationEvents } from '../../events/organization-events.js';
import { requestEvents } from '../../events/request-events.js';
import { resourceEvents, type ResourceEvent } from '../../events/resource-events.js';
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

type NewVersion = Recorded<Extract<ResourceEvent, { type: 'DocumentUpdated' | 'FileVersionAdded' }>>;
const isNewVersion = (e: { readonly type: string }): e is NewVersion => e.type === 'DocumentUpdated' || e.type === 'FileVersionAdded';

/** Which of these resources are granted somewhere, as of `upTo` in the log at least. */
export type GrantedAmong = (resourceIds: readonly string[], upTo: Position) => Promise<ReadonlySet<string>>;

/**
 * R-KEEP-09, R-PROP-01: on an auto slot the first version is kept when it is granted, and every
 * later one as soon as it exists; on a manual slot a later version opens a proposal. The job finds
 * out which the slot is; the reactor only notices, and asks once a page which of its new versions
 * are of resources granted anywhere: a version nobody was granted needs no job, and a slot granted
 * after it gets the version current then (its own SlotGranted job keeps that on an auto slot).
 */
export function autoKeepOnNewVersions(queue: Pick<JobQueue, 'enqueue'>, grantedAmong: GrantedAmong): Reactor {
  const job = (e: RecordedEvent, target: { requestId: string; slotId: string } | { resourceId: string; version: number }) =>
    queue.enqueue(AUTO_KEEP_QUEUE, `auto-keep-${e.metadata.eventId}`, { ...target, ...cause(e) });
  return reactor({
    name: 'auto_keep_on_new_versions',
    events: eitherOf(requestEvents, resourceEvents),
    worthReacting: async (page) => {
      const versions = page.filter(isNewVersion);
      const granted =
        versions.length > 0 ? await grantedAmong([...new Set(versions.map((e) => e.data.resourceId))], page.at(-1)!.position) : null;
      return new Set(page.filter((e) => !isNewVersion(e) || granted?.has(e.data.resourceId)));
    },
    on: {
      SlotGranted: (e) => job(e, { requestId: e.data.requestId, slotId: e.data.slotId }),
      DocumentUpdated: (e) => job(e, { resourceId: e.data.resourceId, version: e.data.version }),
      FileVersionAdded: (e) => job(e, { resourceId: e.data.resourceId, version: e.data.version }),
    },
  });
}
