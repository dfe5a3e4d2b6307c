/** Timed waits that one call can end early: a loop idles until news arrives or its time is up. */
export class Sleepers {
  private readonly waiting = new Set<() => void>();
  private wakes = 0;

  /** A mark to pass to sleep(): news that came after it, while the loop was busy, is not slept through. */
  mark(): number {
    return this.wakes;
  }

  sleep(ms: number, since?: number): Promise<void> {
    if (since !== undefined && since !== this.wakes) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiting.add(done);
    });
  }

  wakeAll(): void {
    this.wakes++;
    for (const wake of [...this.waiting]) wake();
  }
}
