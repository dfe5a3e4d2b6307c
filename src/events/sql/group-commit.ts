/**
 * Group commit: appends that arrive while earlier ones are being written wait and go together, in
 * one statement and one commit, instead of each paying its own round trip and WAL flush. One append
 * alone goes at once, so a quiet service waits for nothing. A stream is never in two batches in
 * flight, nor twice in one, so batches of one process never wait on each other's stream locks.
 */
export class GroupCommit<Item extends { readonly key: string }, Result> {
  private readonly waiting: Array<{ item: Item; resolve: (r: Result) => void; reject: (e: unknown) => void }> = [];
  private readonly busy = new Set<string>();
  private inFlight = 0;

  constructor(
    private readonly write: (items: readonly Item[]) => Promise<ReadonlyArray<Result | Error>>,
    private readonly options: { readonly maxInFlight: () => number; readonly maxBatch: number },
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.inFlight < this.options.maxInFlight()) {
      const batch = this.take();
      if (batch.length === 0) return;
      this.inFlight++;
      void this.run(batch);
    }
  }

  /** The oldest waiting items whose streams are free, one per stream, in arrival order. */
  private take(): typeof this.waiting {
    const batch: typeof this.waiting = [];
    const keys = new Set<string>();
    for (let i = 0; i < this.waiting.length && batch.length < this.options.maxBatch;) {
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
      this.next();
    }
  }
}
