/** A stream's last event as an appender must know it: its revision and its hash (the next prevHash). */
export type StreamHead = { readonly revision: number; readonly hash: string };

const CAPACITY = 10_000;

/**
 * The heads this process last read or wrote, newest kept: a command reads its stream before it
 * appends, so the append can compare-and-set the head in one statement instead of reading it again
 * under a lock. A stale entry costs nothing but that fallback; the statement checks the head itself.
 */
export class StreamHeads {
  private readonly heads = new Map<string, StreamHead>();

  get(streamId: string): StreamHead | undefined {
    return this.heads.get(streamId);
  }

  remember(streamId: string, head: StreamHead): void {
    this.heads.delete(streamId);
    this.heads.set(streamId, head);
    if (this.heads.size > CAPACITY) this.heads.delete(this.heads.keys().next().value!);
  }
}
