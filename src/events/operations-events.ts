import type { DomainEvent } from './domain-event.js';
import { eventDecoder, streamOf, type StreamRef } from './decoder.js';

/**
 * An operator moved a stalled projector past one event it cannot apply. Replay passes over the
 * same event for the same projector, so a rebuilt read model equals the live one.
 */
export type ProjectorEventSkipped = DomainEvent<
  'ProjectorEventSkipped',
  {
    projector: string;
    /** formatPosition() of the skipped event. */
    position: string;
    skippedEventId: string;
    skippedEventType: string;
    reason: string;
    by: string;
    /** The error class the projector was stalled with. */
    errorClass: string;
  }
>;

export type OperationsEvent = ProjectorEventSkipped;

export const operationsEvents = eventDecoder<OperationsEvent>('operations', { ProjectorEventSkipped: { version: 1 } });

/** Stream: `operations-projections`, what operators did to the projectors, for the record and for replay. */
export const operationsStreams: { readonly projections: StreamRef<OperationsEvent> } = {
  projections: streamOf(operationsEvents, 'operations-projections'),
};
