import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RecordedEvent } from './envelope.js';
import type { ChainHead } from './hash-chain.js';

export type LogSummary = { readonly events: number; readonly streams: number; readonly headsHash: string };

/** Streams hashed between two yields of summaryInSlices: a few milliseconds of work. */
const SLICE = 2000;

/**
 * Every stream's head, and the number of events, as of a place in the global log: what a
 * LogCheckpointed records and what verify-log recomputes. The checkpointer and the verifier share
 * it, so both summarize the same way.
 */
export class LogHeads {
  private readonly heads: Map<string, ChainHead>;
  /** Stream ids in order as of the last summary; those first seen since wait in `added`. */
  private sorted: string[] = [];
  private added: string[];

  constructor(
    heads: Iterable<readonly [string, ChainHead]> = [],
    private count = 0,
  ) {
    this.heads = new Map(heads);
    this.added = [...this.heads.keys()];
  }

  get events(): number {
    return this.count;
  }

  head(streamId: string): ChainHead | null {
    return this.heads.get(streamId) ?? null;
  }

  apply(e: RecordedEvent): ChainHead {
    const head = { revision: e.revision, hash: e.metadata.hash };
    if (!this.heads.has(e.streamId)) this.added.push(e.streamId);
    this.heads.set(e.streamId, head);
    this.count++;
    return head;
  }

  summary(): LogSummary {
    const steps = this.summarize();
    for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
  }

  /**
   * The same summary, yielding to the event loop between slices: with tens of thousands of streams
   * the hash takes tens of milliseconds, which a service must not hold every other request for.
   * Nothing may apply events until it resolves.
   */
  async summaryInSlices(): Promise<LogSummary> {
    const steps = this.summarize();
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) return step.value;
      await nextTurn();
    }
  }

  /**
   * sha256 over every (stream, revision, hash), sorted by stream id so the order they arrived in does
   * not matter. Only the streams first seen since the last summary are sorted, then merged in.
   */
  private *summarize(): Generator<void, LogSummary> {
    this.sorted = merged(this.sorted, this.added.sort());
    this.added = [];
    const hash = createHash('sha256');
    for (let i = 0; i < this.sorted.length; i++) {
      if (i > 0 && i % SLICE === 0) yield;
      const id = this.sorted[i]!;
      const h = this.heads.get(id)!;
      hash.update(`${JSON.stringify(id)} ${h.revision} ${h.hash}\n`);
    }
    return { events: this.count, streams: this.heads.size, headsHash: hash.digest('hex') };
  }
}

/** Two sorted lists as one, in the order Array.prototype.sort gives strings (UTF-16 code units). */
function merged(a: readonly string[], b: readonly string[]): string[] {
  if (b.length === 0) return a as string[];
  const out = new Array<string>(a.length + b.length);
  let [i, j, k] = [0, 0, 0];
  while (i < a.length && j < b.length) out[k++] = a[i]! < b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
