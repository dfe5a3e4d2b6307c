/**
 * Group commit: appends that arrive while earlier ones are being written wait and go together, in
 * one statement and one commit, instead of each paying its own round trip and WAL flush. One append
 * alone goes at the end of its tick, so a quiet service waits for nothing. A stream is never in two
 * batches in flight, nor twice in one, so batches of one process never wait on each other's stream
 * locks.
 *
 * Batches form at the end of a tick, not at each submit: the writers a batch answers come back in
 * the same tick, and taken one by one the first would go alone into the slot their batch freed
 * while the rest waited for the next (docs/decisions.md, "Read models").
 * The waiting appends are spread evenly over the free slots.
 */
export class GroupCommit<Item extends { readonly key: string }, Result> {
  private readonly waiting: Array<{ item: Item; resolve: (r: Result) => void; reject: (e: unknown) => void }> = [];
  private readonly busy = new Set<string>();
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly write: (items: readonly Item[]) => Promise<ReadonlyArray<Result | Error>>,
    private readonly options: { readonly maxInFlight: number; readonly maxBatch: number },
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.soon();
    });
  }

  /** After everything this tick submits or answers (process.nextTick runs once the microtasks drain). */
  private soon(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    process.nextTick(() => {
      this.scheduled = false;
      this.next();
    });
  }

  private next(): void {
    for (let free = this.options.maxInFlight - this.inFlight; free > 0; free--) {
      const batch = this.take(Math.min(this.options.maxBatch, Math.ceil(this.waiting.length / free)));
      if (batch.length === 0) return;
      this.inFlight++;
      void this.run(batch);
    }
  }

  /** At most `size` of the oldest waiting items whose streams are free, one per stream, in arrival order. */
  private take(size: number): typeof this.waiting {
    const batch: typeof this.waiting = [];
    const keys = new Set<string>();
    for (let i = 0; i < this.waiting.length && batch.length < size;) {
      const w = this.waiting[i]!;
      if (this.busy.has(w.item.key) || keys.has(w.item.key)) {
        i++;
        continue;
      }
      keys.add(w.item.key);
      batch.push(w);
      this.waiting.splice(i, 1);
    }
    for (const k of keys) this.busy.add(k);
    return batch;
  }

  private async run(batch: typeof this.waiting): Promise<void> {
    try {
      const results = await this.write(batch.map((w) => w.item));
      batch.forEach((w, i) => {
        const r = results[i];
        if (r instanceof Error) w.reject(r);
        else w.resolve(r as Result);
      });
    } catch (e) {
      for (const w of batch) w.reject(e);
    } finally {
      for (const w of batch) this.busy.delete(w.item.key);
      this.inFlight--;
      this.soon();
    }
  }
}
