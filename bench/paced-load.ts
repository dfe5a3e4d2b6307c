import { problemCode, type Call, type Script } from './load.js';
import { percentile } from './measure.js';

/**
 * Requests a second one stream of a lane is given. A stream sends one request at a time (a correct
 * needs the head its last one answered), and at this pace the next is due some 200 ms after the
 * last, far beyond the latency of a service below saturation: a request hardly ever waits.
 */
const STREAM_RATE = 5;
/** How long after its window's end a request may still answer before it counts as an error. */
const ANSWER_GRACE_MS = 10_000;

export type Pace = { readonly rate: number; readonly windows: number; readonly windowSeconds: number };

/**
 * A fixed arrival schedule: request k is due k/rate seconds after the start whatever the answers,
 * its lane (kind of call) by the lanes' shares, spread evenly. Request j of a lane goes to stream
 * j mod streams, so how many each stream sends is known before the run, and records prepared.
 */
export class Schedule {
  readonly total: number;
  private readonly pattern: readonly number[];

  constructor(
    private readonly shares: readonly number[],
    readonly pace: Pace,
  ) {
    this.total = Math.round(pace.rate * pace.windows * pace.windowSeconds);
    this.pattern = interleaved(shares);
  }

  laneOf(k: number): number {
    return this.pattern[k % this.pattern.length]!;
  }

  /** Milliseconds after the start. */
  dueMs(k: number): number {
    return (k * 1000) / this.pace.rate;
  }

  windowOf(k: number): number {
    return Math.min(this.pace.windows - 1, Math.floor(k / (this.pace.rate * this.pace.windowSeconds)));
  }

  streams(lane: number): number {
    const laneRate = (this.pace.rate * this.shares[lane]!) / this.pattern.length;
    return Math.max(1, Math.ceil(laneRate / STREAM_RATE));
  }

  /** The most requests one stream of the lane sends in the whole run. */
  perStream(lane: number): number {
    let count = 0;
    for (let k = 0; k < this.total; k++) if (this.laneOf(k) === lane) count++;
    return Math.ceil(count / this.streams(lane));
  }
}

/** Smooth weighted round-robin: a lane of share 5 in 100 comes every 20th request, not five in a row. */
function interleaved(shares: readonly number[]): number[] {
  const total = shares.reduce((a, b) => a + b, 0);
  const credit = shares.map(() => 0);
  const pattern: number[] = [];
  for (let i = 0; i < total; i++) {
    shares.forEach((share, lane) => (credit[lane]! += share));
    const next = credit.indexOf(Math.max(...credit));
    credit[next]! -= total;
    pattern.push(next);
  }
  return pattern;
}

/** One window's figures, over the requests due in it. */
export type PacedWindow = {
  /** 1-based. */
  readonly window: number;
  readonly requests: number;
  /** 2xx answers a second. */
  readonly perSecond: number;
  /** Latency of the 2xx answers, from when each request was due (not when it left: a wait counts). */
  readonly p50ms: number;
  readonly p99ms: number;
  readonly maxMs: number;
  /** Non-2xx answers, failed calls, and requests without an answer ANSWER_GRACE_MS after the window. */
  readonly errors: number;
  /** What the errors were: "2× 409 version_conflict (correct)"; empty without errors. */
  readonly failures: string;
};

export type Lane = { readonly name: string; readonly scripts: readonly Script[] };
export type Send = (call: Call) => Promise<{ status: number; text: string }>;

/** A request due, waiting for its stream to send it. */
type Due = { readonly at: number; readonly tally: Tally };
type Stream = { readonly lane: string; readonly script: Script; readonly waiting: Due[]; busy: boolean };

/**
 * Runs the schedule, lane i of `lanes` sending lane i's share through its scripts, and yields each
 * window once every request due in it answered (or the grace ran out). The schedule keeps running
 * while the caller handles a window.
 */
export async function* pacedWindows(schedule: Schedule, lanes: readonly Lane[], send: Send): AsyncGenerator<PacedWindow> {
  const streams = lanes.map((lane, i) => {
    if (lane.scripts.length < schedule.streams(i)) throw new Error(`lane ${lane.name} has ${lane.scripts.length} scripts`);
    return lane.scripts.map((script): Stream => ({ lane: lane.name, script, waiting: [], busy: false }));
  });
  const { windows, windowSeconds } = schedule.pace;
  const tallies = Array.from({ length: windows }, () => new Tally());
  const sentOfLane = lanes.map(() => 0);
  const started = performance.now();
  let next = 0;
  let timer: NodeJS.Timeout | undefined;

  const dispatch = (k: number) => {
    const lane = schedule.laneOf(k);
    const stream = streams[lane]![sentOfLane[lane]!++ % schedule.streams(lane)]!;
    const tally = tallies[schedule.windowOf(k)]!;
    tally.sent++;
    stream.waiting.push({ at: started + schedule.dueMs(k), tally });
    if (!stream.busy) void drain(stream, send);
  };
  // Timers fire late under load: each tick sends everything already due, so the count stays exact.
  const tick = () => {
    while (next < schedule.total && started + schedule.dueMs(next) <= performance.now()) dispatch(next++);
    if (next < schedule.total) timer = setTimeout(tick, Math.max(0, started + schedule.dueMs(next) - performance.now()));
  };

  tick();
  try {
    for (let w = 0; w < windows; w++) {
      const end = started + (w + 1) * windowSeconds * 1000;
      // A timer can fire a little before its time by performance.now() (libuv's clock is the loop's,
      // taken earlier), and the tick sending the window's last requests can come late: a window is
      // judged only once its end has passed and every request due in it has been sent.
      while (performance.now() < end) await sleep(end - performance.now());
      clearTimeout(timer);
      tick();
      const tally = tallies[w]!;
      const deadline = end + ANSWER_GRACE_MS;
      while (!tally.done() && performance.now() < deadline) await sleep(Math.min(50, deadline - performance.now()));
      yield tally.close(w + 1, windowSeconds);
    }
  } finally {
    // Nothing is sent once the caller stopped listening, the service may be going.
    clearTimeout(timer);
    for (const stream of streams.flat()) stream.waiting.length = 0;
  }
}

/** Sends the stream's waiting requests one after the other. */
async function drain(stream: Stream, send: Send): Promise<void> {
  stream.busy = true;
  for (let due = stream.waiting.shift(); due; due = stream.waiting.shift()) {
    let answer: { status: number; text: string };
    try {
      answer = await send(stream.script.next());
    } catch (e) {
      due.tally.failed(stream.lane, e instanceof Error ? e.message : String(e));
      continue;
    }
    due.tally.answered(stream.lane, performance.now() - due.at, answer.status, answer.text);
    stream.script.answered?.(answer.status, answer.text);
  }
  stream.busy = false;
}

class Tally {
  sent = 0;
  private settled = 0;
  private closed = false;
  private readonly latencies: number[] = [];
  private readonly failures = new Map<string, number>();

  answered(lane: string, ms: number, status: number, body: string): void {
    if (this.closed) return;
    this.settled++;
    if (status >= 200 && status <= 299) this.latencies.push(ms);
    else this.count(`${`${status} ${problemCode(body)}`.trim()} (${lane})`);
  }

  failed(lane: string, message: string): void {
    if (this.closed) return;
    this.settled++;
    this.count(`${message} (${lane})`);
  }

  done(): boolean {
    return this.settled === this.sent;
  }

  /** Late answers of a closed window are not counted: they are its errors already. */
  close(window: number, seconds: number): PacedWindow {
    this.closed = true;
    const unanswered = this.sent - this.settled;
    if (unanswered > 0) this.failures.set(`no answer ${ANSWER_GRACE_MS / 1000} s after the window`, unanswered);
    return {
      window,
      requests: this.sent,
      perSecond: this.latencies.length / seconds,
      p50ms: percentile(this.latencies, 50),
      p99ms: percentile(this.latencies, 99),
      maxMs: this.latencies.reduce((a, b) => Math.max(a, b), 0),
      errors: this.sent - this.latencies.length,
      failures: [...this.failures].map(([what, n]) => `${n}× ${what}`).join(', '),
    };
  }

  private count(what: string): void {
    this.failures.set(what, (this.failures.get(what) ?? 0) + 1);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
