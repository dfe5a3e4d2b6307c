import { formatPosition, type Position } from '../events/position.js';
import type { RecordedEvent } from '../events/envelope.js';

/**
 * Attempts at one event before a projector is declared stalled on it. A handler is deterministic
 * (it sees only the event and its tables), so an error that came back three times will come back
 * every time; a connection or contention error never counts (see isTransient).
 */
export const STALL_AFTER_ATTEMPTS = 3;

/** A handler failed on this event; `index` is its place in the batch, so the events before it can still be applied. */
export class ProjectorEventError extends Error {
  override readonly name = 'ProjectorEventError';
  constructor(
    readonly event: RecordedEvent,
    readonly index: number,
    override readonly cause: unknown,
  ) {
    super(`projector failed on ${event.type} ${event.metadata.eventId} at ${formatPosition(event.position)}`);
  }
}

/** A read model a command waits on is stalled on an event it cannot apply: waiting longer cannot help. */
export class ProjectionStalledError extends Error {
  override readonly name = 'ProjectionStalledError';
  constructor(
    readonly projector: string,
    readonly position: Position,
    readonly errorClass: string,
  ) {
    super(`read model ${projector} is stalled at ${formatPosition(position)} (${errorClass})`);
  }
}

/** SQLSTATE classes and codes that say "try again": connection, resources, contention, shutdown, cancel. */
const TRANSIENT_SQLSTATE = /^(08|53|57P0|40001$|40P01$|55P03$|57014$)/;
const TRANSIENT_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** Errors about reaching the database rather than about the event: retried forever, never a stall. */
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return /connection|terminat/i.test(error instanceof Error ? error.message : '');
  return TRANSIENT_SQLSTATE.test(code) || TRANSIENT_NODE_CODES.has(code);
}

/**
 * A short, bounded name for an error: the SQLSTATE for a database error, else the error's class.
 * It goes to /readyz and a metric label, so it never carries the message (which may quote data).
 */
export function errorClassOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return `sqlstate_${code}`;
  const name = error instanceof Error ? error.constructor.name || error.name : typeof error;
  return name.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 64) || 'Error';
}
