// The in-memory log behind the EventStoreDB wire server: streams, expected revisions, $all
// positions, tombstones and the stream metadata that reads honour. No gRPC in here.

/** The revision EventStoreDB gives a tombstone (EventNumber.DeletedStream). */
export const TOMBSTONE_REVISION = 2n ** 63n - 1n;

export type Proposed = {
  readonly id: string;
  readonly type: string;
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly customMetadata: Uint8Array;
};

/** An event as stored. Its commit position equals its prepare position, as for a one-event write. */
export type Recorded = Proposed & {
  readonly streamId: string;
  readonly revision: bigint;
  readonly position: bigint;
  /** 100-ns ticks since the Unix epoch. */
  readonly created: bigint;
  /** Its place in $all, counted from 0. */
  readonly index: number;
};

export type Expected =
  | { readonly kind: 'any' }
  | { readonly kind: 'no_stream' }
  | { readonly kind: 'stream_exists' }
  | { readonly kind: 'revision'; readonly revision: bigint };

export type WriteOutcome =
  /** `position` is null for an idempotent retry, which EventStoreDB answers without one. */
  | { readonly kind: 'ok'; readonly revision: bigint | null; readonly position: bigint | null }
  | { readonly kind: 'wrong_expected_version'; readonly current: bigint | null }
  | { readonly kind: 'stream_deleted' };

export type From = 'start' | 'end' | bigint;

export type StreamRead =
  { readonly kind: 'ok'; readonly events: readonly Recorded[] } | { readonly kind: 'not_found' } | { readonly kind: 'deleted' };

/** The part of $metadata the log acts on; other keys (ACLs, custom ones) are kept but not enforced. */
type StreamMetadata = { readonly raw: Record<string, unknown>; readonly tb?: number; readonly maxCount?: number; readonly maxAge?: number };

type Stream = { readonly events: Recorded[]; tombstoned: boolean };

const TICKS_PER_MS = 10_000n;
const text = new TextEncoder();

export function isMetastream(streamId: string): boolean {
  return streamId.startsWith('$$');
}

export class EventLog {
  private readonly all: Recorded[] = [];
  private readonly streams = new Map<string, Stream>();
  private readonly listeners = new Set<() => void>();
  private nextPosition = 0n;

  constructor() {
    this.seedSystemEvents();
  }

  get length(): number {
    return this.all.length;
  }

  at(index: number): Recorded | undefined {
    return this.all[index];
  }

  /** Called after every write, so subscriptions pull what is new. */
  onWrite(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  append(streamId: string, expected: Expected, proposed: readonly Proposed[]): WriteOutcome {
    const stream = this.streams.get(streamId);
    if (stream?.tombstoned) return { kind: 'stream_deleted' };
    const events = stream?.events ?? [];
    const last = events.at(-1)?.revision ?? null;
    const retried = this.idempotentRetry(events, expected, proposed);
    if (retried !== null) return { kind: 'ok', revision: retried, position: null };
    const softDeleted = this.isSoftDeleted(streamId);
    if (!satisfies(expected, last, softDeleted)) return { kind: 'wrong_expected_version', current: softDeleted ? null : last };
    if (proposed.length === 0) return { kind: 'ok', revision: last, position: null };
    // Appending to a soft-deleted stream brings it back with the old events still truncated away.
    if (softDeleted && last !== null) this.writeMetadata(streamId, { $tb: last + 1n });
    let written: Recorded | null = null;
    for (const p of proposed) written = this.write(streamId, (written?.revision ?? last ?? -1n) + 1n, p);
    this.notify();
    return { kind: 'ok', revision: written!.revision, position: written!.position };
  }

  /** A hard delete: the stream can never be read or written again. */
  tombstone(streamId: string, expected: Expected): WriteOutcome {
    const stream = this.streams.get(streamId);
    if (stream?.tombstoned) return { kind: 'stream_deleted' };
    const last = stream?.events.at(-1)?.revision ?? null;
    const softDeleted = this.isSoftDeleted(streamId);
    if (!satisfies(expected, last, softDeleted)) return { kind: 'wrong_expected_version', current: softDeleted ? null : last };
    const event = this.write(streamId, TOMBSTONE_REVISION, {
      id: crypto.randomUUID(),
      type: '$streamDeleted',
      contentType: 'application/octet-stream',
      data: new Uint8Array(),
      customMetadata: new Uint8Array(),
    });
    this.streamOf(streamId).tombstoned = true;
    this.notify();
    return { kind: 'ok', revision: TOMBSTONE_REVISION, position: event.position };
  }

  /** A soft delete: $tb set past every revision, so reads find no stream until it is written again. */
  softDelete(streamId: string, expected: Expected): WriteOutcome {
    const stream = this.streams.get(streamId);
    if (stream?.tombstoned) return { kind: 'stream_deleted' };
    const last = stream?.events.at(-1)?.revision ?? null;
    const softDeleted = this.isSoftDeleted(streamId);
    if (!satisfies(expected, last, softDeleted)) return { kind: 'wrong_expected_version', current: softDeleted ? null : last };
    const event = this.writeMetadata(streamId, { $tb: TOMBSTONE_REVISION });
    this.notify();
    return { kind: 'ok', revision: last, position: event.position };
  }

  readStream(streamId: string, from: From, direction: 'forwards' | 'backwards', count: bigint): StreamRead {
    const stream = this.streams.get(streamId);
    if (stream?.tombstoned) return { kind: 'deleted' };
    if (!stream || stream.events.length === 0 || this.isSoftDeleted(streamId)) return { kind: 'not_found' };
    const visible = this.visible(streamId, stream.events);
    const out: Recorded[] = [];
    if (direction === 'forwards') {
      if (from === 'end') return { kind: 'ok', events: [] };
      const start = from === 'start' ? 0n : from;
      for (const e of visible) {
        if (BigInt(out.length) >= count) break;
        if (e.revision >= start) out.push(e);
      }
    } else {
      const start = from === 'end' ? TOMBSTONE_REVISION : from === 'start' ? -1n : from;
      for (let i = visible.length - 1; i >= 0 && BigInt(out.length) < count; i--) {
        if (visible[i]!.revision <= start) out.push(visible[i]!);
      }
    }
    return { kind: 'ok', events: out };
  }

  /** Where a forward pass over $all from `from` begins: at the position itself (reads are inclusive). */
  firstIndexAtOrAfter(position: bigint): number {
    let [lo, hi] = [0, this.all.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.all[mid]!.position < position) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The $all index just past `revision` of the stream, or null where the stream has no such event. */
  indexAfterRevision(streamId: string, revision: bigint): number | null {
    const events = this.streams.get(streamId)?.events ?? [];
    const i = events.findIndex((e) => e.revision === revision);
    return i < 0 ? null : events[i]!.index + 1;
  }

  /** The event a link (`$>`, data `revision@stream`) points at, or null where it is gone. */
  resolveLink(link: Recorded): Recorded | null {
    const m = /^(\d+)@(.+)$/s.exec(new TextDecoder().decode(link.data));
    if (!m) return null;
    const stream = this.streams.get(m[2]!);
    if (!stream || stream.tombstoned) return null;
    const revision = BigInt(m[1]!);
    return this.visible(m[2]!, stream.events).find((e) => e.revision === revision) ?? null;
  }

  isTombstoned(streamId: string): boolean {
    return this.streams.get(streamId)?.tombstoned ?? false;
  }

  private write(streamId: string, revision: bigint, p: Proposed): Recorded {
    const event: Recorded = {
      ...p,
      streamId,
      revision,
      position: this.nextPosition,
      created: BigInt(Date.now()) * TICKS_PER_MS,
      index: this.all.length,
    };
    // Positions are byte offsets in a real log: they grow by the record's size, not by one.
    this.nextPosition += BigInt(64 + text.encode(streamId + p.type).length + p.data.length + p.customMetadata.length);
    this.all.push(event);
    if (revision !== TOMBSTONE_REVISION) this.streamOf(streamId).events.push(event);
    return event;
  }

  /** Bigints go into the JSON digit for digit (2^63 - 1 included), as the server writes them. */
  private writeMetadata(streamId: string, changes: Record<string, bigint>): Recorded {
    const metastream = `$$${streamId}`;
    const raw = { ...this.metadataOf(streamId).raw };
    for (const key of Object.keys(changes)) delete raw[key];
    const pairs = Object.entries(changes).map(([k, v]) => `${JSON.stringify(k)}:${v}`);
    const body = JSON.stringify(raw).slice(0, -1);
    const json = `${body}${body.length > 1 ? ',' : ''}${pairs.join(',')}}`;
    const last = this.streams.get(metastream)?.events.at(-1)?.revision ?? -1n;
    return this.write(metastream, last + 1n, {
      id: crypto.randomUUID(),
      type: '$metadata',
      contentType: 'application/json',
      data: text.encode(json),
      customMetadata: new Uint8Array(),
    });
  }

  private metadataOf(streamId: string): StreamMetadata {
    if (isMetastream(streamId)) return { raw: {} };
    const latest = this.streams.get(`$$${streamId}`)?.events.at(-1);
    if (!latest || latest.contentType !== 'application/json') return { raw: {} };
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(latest.data));
    } catch {
      return { raw: {} };
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { raw: {} };
    const raw = parsed as Record<string, unknown>;
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
    return { raw, tb: num(raw.$tb), maxCount: num(raw.$maxCount), maxAge: num(raw.$maxAge) };
  }

  private isSoftDeleted(streamId: string): boolean {
    // 2^63 - 1 parses to 2^63 as a double; nothing below 2^62 is a real revision here.
    return (this.metadataOf(streamId).tb ?? 0) >= 2 ** 62;
  }

  /** The events reads may see: past $tb, within $maxCount and $maxAge. */
  private visible(streamId: string, events: readonly Recorded[]): readonly Recorded[] {
    const { tb, maxCount, maxAge } = this.metadataOf(streamId);
    let out = events;
    if (tb !== undefined) out = out.filter((e) => e.revision >= BigInt(Math.trunc(tb)));
    if (maxCount !== undefined) out = out.slice(Math.max(0, out.length - maxCount));
    if (maxAge !== undefined) {
      const oldest = (BigInt(Date.now()) - BigInt(Math.trunc(maxAge * 1000))) * TICKS_PER_MS;
      out = out.filter((e) => e.created >= oldest);
    }
    return out;
  }

  /**
   * EventStoreDB answers a write whose events already follow the expected revision, ids in order,
   * as a success without writing them again.
   */
  private idempotentRetry(events: readonly Recorded[], expected: Expected, proposed: readonly Proposed[]): bigint | null {
    if (proposed.length === 0) return null;
    let first: number;
    if (expected.kind === 'revision') first = Number(expected.revision) + 1;
    else if (expected.kind === 'no_stream') first = 0;
    else first = events.findIndex((e) => e.id === proposed[0]!.id);
    if (first < 0 || first + proposed.length > events.length) return null;
    // Revisions and array slots agree: a stream's events are numbered from 0 without gaps.
    const same = proposed.every((p, i) => events[first + i]!.id === p.id);
    return same ? events[first + proposed.length - 1]!.revision : null;
  }

  private streamOf(streamId: string): Stream {
    let stream = this.streams.get(streamId);
    if (!stream) {
      stream = { events: [], tombstoned: false };
      this.streams.set(streamId, stream);
    }
    return stream;
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** What a fresh node has written before any client: users, settings, projections' bookkeeping. */
  private seedSystemEvents(): void {
    const json = (streamId: string, type: string, data: unknown) => {
      const last = this.streams.get(streamId)?.events.at(-1)?.revision ?? -1n;
      this.write(streamId, last + 1n, {
        id: crypto.randomUUID(),
        type,
        contentType: 'application/json',
        data: text.encode(JSON.stringify(data)),
        customMetadata: new Uint8Array(),
      });
    };
    json('$$$scavenges', '$metadata', { $maxAge: 2592000 });
    json('$user-admin', '$user', { loginName: 'admin', fullName: 'Event Store Administrator', groups: ['$admins'] });
    json('$users', '$User', 'admin');
    json('$user-ops', '$user', { loginName: 'ops', fullName: 'Event Store Operations', groups: ['$ops'] });
    json('$users', '$User', 'ops');
    json('$settings', '$settings', { $userStreamAcl: { $r: '$all', $w: '$all' }, $systemStreamAcl: { $r: '$admins', $w: '$admins' } });
    json('$projections-$all', '$ProjectionsInitialized', {});
  }
}

/** Whether a stream at `last` (null: none) meets the expectation; a soft-deleted stream counts as absent. */
function satisfies(expected: Expected, last: bigint | null, softDeleted: boolean): boolean {
  switch (expected.kind) {
    case 'any':
      return true;
    case 'no_stream':
      return last === null || softDeleted;
    case 'stream_exists':
      return last !== null && !softDeleted;
    case 'revision':
      return last === expected.revision;
  }
}
