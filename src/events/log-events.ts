import type { DomainEvent } from './domain-event.js';
import { eventDecoder, streamOf, type StreamRef } from './decoder.js';

/**
 * A summary of the whole log as of one position (docs/audit.md): a deleted stream, a dropped
 * tail or a removed event changes it, though every remaining per-stream link still holds.
 */
export type LogCheckpointed = DomainEvent<
  'LogCheckpointed',
  {
    /** formatPosition() of the last event summarized. */
    upTo: string;
    /** Events in the log up to and including upTo. */
    events: number;
    /** Streams with at least one event up to upTo. */
    streams: number;
    /** logHeadsHash() of every stream's head as of upTo. */
    headsHash: string;
  }
>;

export type LogEvent = LogCheckpointed;

export const logEvents = eventDecoder<LogEvent>('log', { LogCheckpointed: { version: 1 } });

/** Stream: `log-checkpoint`, written only by the log checkpointer (src/workers/log-checkpointer.ts). */
export const logStreams: { readonly checkpoints: StreamRef<LogEvent> } = {
  checkpoints: streamOf(logEvents, 'log-checkpoint'),
};
