/** Timed waits that one call can end early: a loop idles until news arrives or its time is up. */
export class Sleepers {
  private readonly waiting = new Set<() => void>();

  sleep(ms: number): Promise<void> {
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
    for (const wake of [...this.waiting]) wake();
  }
}
