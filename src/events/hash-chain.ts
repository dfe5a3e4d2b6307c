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

/** A stream's last event as a verifier knows it: what the next event must follow. */
export type ChainHead = { readonly revision: number; readonly hash: string };

/** Checks a whole stream read from revision 0; returns the first break, or null when intact. */
export function verifyChain(events: readonly RecordedEvent[]): ChainBreak | null {
  let head: ChainHead | null = null;
  for (const e of events) {
    const broken = linkBreak(head, e);
    if (broken) return broken;
    head = { revision: e.revision, hash: e.metadata.hash };
  }
  return null;
}

/** Whether `e` follows `head` (null: `e` must open its stream) and its hash recomputes; the first way it does not. */
export function linkBreak(head: ChainHead | null, e: RecordedEvent): ChainBreak | null {
  if (e.revision !== (head ? head.revision + 1 : 0)) return { revision: e.revision, reason: 'revision_gap' };
  if (e.metadata.prevHash !== (head?.hash ?? null)) return { revision: e.revision, reason: 'link_mismatch' };
  const { hash, ...rest } = e.metadata;
  if (hashOf(e.streamId, e.revision, e.type, e.data, rest) !== hash) return { revision: e.revision, reason: 'hash_mismatch' };
  return null;
}

function hashOf(streamId: string, revision: number, type: string, data: JsonObject, metadata: Omit<EventMetadata, 'hash'>): string {
  const body = canonicalJson({ streamId, revision, type, data, metadata: { ...metadata } });
  return createHash('sha256').update(body).digest('hex');
}
