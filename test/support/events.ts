import { randomUUID } from 'node:crypto';
import type { JsonObject, NewEvent } from '../../src/events/envelope.js';

/** An event as a command would hand it to the store, with fresh ids unless given. */
export function newEvent(type: string, data: JsonObject = {}, overrides: Partial<NewEvent['metadata']> = {}): NewEvent {
  return {
    type,
    data,
    metadata: {
      eventId: randomUUID(),
      occurredAt: new Date().toISOString(),
      actor: { kind: 'system', id: 'test' },
      correlationId: randomUUID(),
      causationId: null,
      schemaVersion: 1,
      ...overrides,
    },
  };
}

/** A stream id no other test (or earlier run against a shared server) uses. */
export function uniqueStream(category = 'test'): string {
  return `${category}-${randomUUID()}`;
}
