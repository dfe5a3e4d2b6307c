import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { EventMetadata, JsonObject, NewEvent, RecordedEvent } from './envelope.js';

/**
 * Tamper evidence: each event's hash covers its content and the previous event's hash,
 * so changing, removing or reordering any event of a stream breaks every later link.
 */
export function linkEvent(streamId: string, revision: number, event: NewEvent, prevHash: string | null): EventMetadata {
  const metadata = { ...event.metadata, prevHash };
  const hash = hashOf(streamId, revision, event.type, event.data, metadata);
  return { ...metadata, hash };
}

/** Links a batch appended after the stream's current last event. */
export function linkBatch(streamId: string, firstRevision: number, events: readonly NewEvent[], prevHash: string | null): EventMetadata[] {
  const linked: EventMetadata[] = [];
  let prev = prevHash;
  events.forEach((event, i) => {
    const metadata = linkEvent(streamId, firstRevision + i, event, prev);
    linked.push(metadata);
    prev = metadata.hash;
  });
  return linked;
}

export type ChainBreak = { readonly revision: number; readonly reason: 'hash_mismatch' | 'link_mismatch' | 'revision_gap' };

/** Checks a whole stream read from revision 0; returns the first break, or null when intact. */
export function verifyChain(events: readonly RecordedEvent[]): ChainBreak | null {
  let prev: string | null = null;
  for (const [i, e] of events.entries()) {
    if (e.revision !== i) return { revision: e.revision, reason: 'revision_gap' };
    if (e.metadata.prevHash !== prev) return { revision: e.revision, reason: 'link_mismatch' };
    const { hash, ...rest } = e.metadata;
    if (hashOf(e.streamId, e.revision, e.type, e.data, rest) !== hash) return { revision: e.revision, reason: 'hash_mismatch' };
    prev = hash;
  }
  return null;
}

function hashOf(streamId: string, revision: number, type: string, data: JsonObject, metadata: Omit<EventMetadata, 'hash'>): string {
  const body = canonicalJson({ streamId, revision, type, data, metadata: { ...metadata } });
  return createHash('sha256').update(body).digest('hex');
}
