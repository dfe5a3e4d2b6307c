import { createHash } from 'node:crypto';
import type { RecordedEvent } from './envelope.js';
import type { ChainHead } from './hash-chain.js';

export type LogSummary = { readonly events: number; readonly streams: number; readonly headsHash: string };

/**
 * Every stream's head, and the number of events, as of a place in the global log: what a
 * LogCheckpointed records and what verify-log recomputes. The checkpointer and the verifier share
 * it, so both summarize the same way.
 */
export class LogHeads {
  private readonly heads: Map<string, ChainHead>;

  constructor(
    heads: Iterable<readonly [string, ChainHead]> = [],
    private count = 0,
  ) {
    this.heads = new Map(heads);
  }

  get events(): number {
    return this.count;
  }

  head(streamId: string): ChainHead | null {
    return this.heads.get(streamId) ?? null;
  }

  apply(e: RecordedEvent): ChainHead {
    const head = { revision: e.revision, hash: e.metadata.hash };
    this.heads.set(e.streamId, head);
    this.count++;
    return head;
  }

  summary(): LogSummary {
    return { events: this.count, streams: this.heads.size, headsHash: logHeadsHash(this.heads) };
  }
}

/** sha256 over every (stream, revision, hash), sorted by stream id so the order they arrived in does not matter. */
function logHeadsHash(heads: ReadonlyMap<string, ChainHead>): string {
  const hash = createHash('sha256');
  for (const id of [...heads.keys()].sort()) {
    const h = heads.get(id)!;
    hash.update(`${JSON.stringify(id)} ${h.revision} ${h.hash}\n`);
  }
  return hash.digest('hex');
}
