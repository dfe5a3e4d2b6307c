import type { DomainEvent } from '../commands/decider.js';

/** Stream: `operations-projections`, what operators did to the projectors, for the record and for replay. */
export const operationsStreams = {
  projections: 'operations-projections',
};

/**
 * An operator moved a stalled projector past one event it cannot apply. Replay passes over the
 * same event for the same projector, so a rebuilt read model equals the live one.
 */
export type ProjectorEventSkipped = DomainEvent<'ProjectorEventSkipped', {
  projector: string;
  /** formatPosition() of the skipped event. */
  position: string;
  skippedEventId: string;
  skippedEventType: string;
  reason: string;
  by: string;
  /** The error class the projector was stalled with. */
  errorClass: string;
}>;
