import { percentile } from './measure.js';

/** A window's resident set, in MB: the median of its samples and their range. */
export type RssFigure = { readonly medianMb: number; readonly minMb: number; readonly maxMb: number };

/**
 * A process's resident set sampled every second. One instant says where V8's heap happened to be:
 * between two full collections (every 5–10 s under the soak's mix) the heap grows by 30–190 MB of
 * garbage and shrinks again, while what survives a collection stays within a few MB. The median of
 * a window's samples is the level it holds; the range shows the swing (docs/reliability.md, Soak).
 */
export class RssSamples {
  private samples: number[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly read: () => Promise<number>,
    everyMs = 1000,
  ) {
    this.timer = setInterval(() => void this.take(), everyMs);
  }

  /** The samples since the last window and one taken now, so that a window shorter than a second has one. */
  async window(): Promise<RssFigure> {
    this.samples.push(await this.read());
    const mb = this.samples.map((bytes) => Math.round(bytes / 2 ** 20));
    this.samples = [];
    return { medianMb: percentile(mb, 50), minMb: Math.min(...mb), maxMb: Math.max(...mb) };
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async take(): Promise<void> {
    // A sample the process could not give (it is going) is left out: the one window() takes is not.
    const bytes = await this.read().catch(() => null);
    if (bytes !== null) this.samples.push(bytes);
  }
}
