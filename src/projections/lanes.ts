/** One item of the work as every lane has it to write, and the lanes still to start or to finish it. */
type Item<T> = { readonly item: T; readonly toStart: Set<number>; readonly toFinish: Set<number> };

export type Lanes<T> = {
  /** How many lanes write every item, each the items in order, one at a time. */
  readonly lanes: number;
  /** How many items lanes write at once, whichever lanes are free. */
  readonly writers: number;
  /** Items read ahead of the slowest lane at most: what a lane behind still has to write stays in memory. */
  readonly ahead: number;
  /** The next item, null once there is none. */
  readonly next: () => Promise<T | null>;
  readonly write: (lane: number, item: T) => Promise<void>;
  /** Called for each item once every lane has written it, in order. */
  readonly written: (item: T) => void;
};

/**
 * Work read in order and written by lanes (a replay's read models): a lane writes its next item
 * once its last is written, so each lane keeps the items' order, and a lane slower than the others
 * holds them only once they are `ahead` items ahead of it. Should a write or a read fail, no write
 * starts after it, and the first failure is thrown once the writes under way have ended.
 */
export async function writeInLanes<T>(o: Lanes<T>): Promise<void> {
  if (!(o.writers >= 1 && o.ahead >= 1)) throw new RangeError('lanes need a writer and room for an item at least');
  const items: Item<T>[] = [];
  const writing = new Set<number>();
  let ended = false;
  let failure = null as { error: unknown } | null;
  let changed = Promise.withResolvers<void>();
  const change = () => {
    changed.resolve();
    changed = Promise.withResolvers<void>();
  };
  // The first item a lane not writing has still to start is its next, as it writes them in order.
  const nextTask = (): { at: Item<T>; lane: number } | null => {
    for (const at of items) for (const lane of at.toStart) if (!writing.has(lane)) return { at, lane };
    return null;
  };
  // Lanes finish their items in order, so the oldest item is the first every lane has finished.
  const settle = () => {
    while (items[0]?.toFinish.size === 0) o.written(items.shift()!.item);
  };
  const finished = (at: Item<T>, lane: number) => {
    at.toFinish.delete(lane);
    writing.delete(lane);
    settle();
  };
  const all = Array.from({ length: o.lanes }, (_, lane) => lane);
  const reader = async () => {
    while (!ended && !failure) {
      if (items.length >= o.ahead) {
        await changed.promise;
        continue;
      }
      const item = await o.next();
      if (item === null) ended = true;
      else items.push({ item, toStart: new Set(all), toFinish: new Set(all) });
      // Without lanes an item has nothing to wait for.
      settle();
      change();
    }
  };
  const writer = async () => {
    while (!failure) {
      const task = nextTask();
      if (!task) {
        if (ended && items.every((at) => at.toStart.size === 0)) return;
        await changed.promise;
        continue;
      }
      task.at.toStart.delete(task.lane);
      writing.add(task.lane);
      await o.write(task.lane, task.at.item);
      finished(task.at, task.lane);
      change();
    }
  };
  const stop = (error: unknown) => {
    failure ??= { error };
    change();
  };
  await Promise.all([reader(), ...Array.from({ length: o.writers }, writer)].map((w) => w.catch(stop)));
  if (failure) throw failure.error;
}
