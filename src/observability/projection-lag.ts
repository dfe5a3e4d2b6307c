import type { EventStore } from '../events/store.js';
import type { ProjectorStatus } from '../projections/engine.js';

/** The slice of the projection engine observability reads. */
export type ProjectionStatusSource = { status(): Promise<ProjectorStatus[]> };

export type ProjectorLag = { readonly projector: string; readonly lagSeconds: number };

/**
 * How far each projector trails the log, as the age of the oldest event it has not applied
 * (0 when it has applied everything visible, always for one written inline by each append).
 * Seconds rather than a count of events: positions are not dense on every adapter, and a steady
 * backlog under load stays young while a stuck projector's grows without bound.
 */
export async function projectionLag(
  engine: ProjectionStatusSource,
  store: Pick<EventStore, 'readAll'>,
  now: number = Date.now(),
): Promise<ProjectorLag[]> {
  const statuses = await engine.status();
  return Promise.all(
    statuses.map(async (s) => {
      if (s.inline) return { projector: s.projector, lagSeconds: 0 };
      const [next] = await store.readAll({ after: s.position, maxCount: 1 });
      if (!next) return { projector: s.projector, lagSeconds: 0 };
      const occurred = Date.parse(next.metadata.occurredAt);
      // An event without a readable time still proves the projector is behind.
      const lagSeconds = Number.isFinite(occurred) ? Math.max(0, (now - occurred) / 1000) : Number.POSITIVE_INFINITY;
      return { projector: s.projector, lagSeconds };
    }),
  );
}
