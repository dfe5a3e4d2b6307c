// The Streams service: Read (reads and catch-up subscriptions), Append, BatchAppend, Delete and
// Tombstone, answering as EventStoreDB 24.x does on the wire.
import { randomUUID } from 'node:crypto';
import {
  status,
  type Metadata,
  type sendUnaryData,
  type ServerDuplexStream,
  type ServerErrorResponse,
  type ServerReadableStream,
  type ServerWritableStream,
} from '@grpc/grpc-js';
import type streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import type sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import type statusPb from '@eventstore/db-client/generated/status_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import {
  appendSuccess,
  appendWrongVersion,
  batchErrors,
  batchResp,
  batchSuccess,
  caughtUpResp,
  checkpointResp,
  confirmationResp,
  errors,
  eventResp,
  expectedOf,
  proposedOf,
  rpcError,
  sizeOnDisk,
  streamNameOf,
  streamNotFoundResp,
  type UuidFormat,
} from './codec.js';
import { TOMBSTONE_REVISION, type EventLog, type Expected, type Proposed, type Recorded } from './log.js';

/** The default users of a fresh node; credentials are checked only where the client sends them (TLS). */
const USERS = new Map([
  ['admin', 'changeit'],
  ['ops', 'changeit'],
]);
/** EventStoreDB's search window for filtered subscriptions when the client names none. */
const DEFAULT_MAX_SEARCH_WINDOW = 32;

type ReadCall = ServerWritableStream<streamsPb.ReadReq, streamsPb.ReadResp>;

/** What live calls hold (log listeners, timers), let go when the server shuts down under them. */
export type OpenCalls = Set<() => void>;

export function authFailure(metadata: Metadata): ServerErrorResponse | null {
  const [header] = metadata.get('authorization');
  if (header === undefined) return null;
  const m = /^Basic\s+(.+)$/i.exec(String(header));
  if (!m) return errors.unauthenticated();
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const [user, password] = colon < 0 ? [decoded, ''] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
  return USERS.get(user) === password ? null : errors.unauthenticated();
}

/** Server settings a test may change, as EVENTSTORE_MAX_APPEND_SIZE does for a node. */
export type Limits = { readonly maxAppendSize: number };

export function streamsService(log: EventLog, open: OpenCalls, limits: Limits): streamsGrpc.IStreamsServer {
  return {
    read: (call) => {
      const denied = authFailure(call.metadata);
      if (denied) return void call.emit('error', denied);
      void read(log, open, call).catch((e: unknown) => call.emit('error', rpcError(status.INTERNAL, String(e))));
    },
    append: (call, callback) => append(log, limits, call, callback),
    batchAppend: (call) => batchAppend(log, limits, open, call),
    delete: (call, callback) => {
      const at = remove(log, call.metadata, call.request.getOptions(), 'delete');
      if (typeof at !== 'bigint') return callback(at);
      const position = new streamsPb.DeleteResp.Position().setCommitPosition(at.toString()).setPreparePosition(at.toString());
      callback(null, new streamsPb.DeleteResp().setPosition(position));
    },
    tombstone: (call, callback) => {
      const at = remove(log, call.metadata, call.request.getOptions(), 'tombstone');
      if (typeof at !== 'bigint') return callback(at);
      const position = new streamsPb.TombstoneResp.Position().setCommitPosition(at.toString()).setPreparePosition(at.toString());
      callback(null, new streamsPb.TombstoneResp().setPosition(position));
    },
  };
}

type Filter = {
  readonly matches: (e: Recorded) => boolean;
  /** Events examined between checkpoints of a subscription. */
  readonly checkpointEvery: number;
};

function filterOf(options: streamsPb.ReadReq.Options): Filter | null {
  const f = options.hasFilter() ? options.getFilter()! : null;
  if (!f) return null;
  const onStream = f.hasStreamIdentifier();
  const expression = onStream ? f.getStreamIdentifier() : f.getEventType();
  if (!expression) return null;
  const regex = expression.getRegex() ? new RegExp(expression.getRegex()) : null;
  const prefixes = expression.getPrefixList();
  const subject = (e: Recorded) => (onStream ? e.streamId : e.type);
  const window = f.hasMax() ? f.getMax() : DEFAULT_MAX_SEARCH_WINDOW;
  return {
    matches: regex ? (e) => regex.test(subject(e)) : (e) => prefixes.length === 0 || prefixes.some((p) => subject(e).startsWith(p)),
    checkpointEvery: Math.max(1, f.getCheckpointintervalmultiplier()) * window,
  };
}

/** Writes that wait for the client to drain, and stop once the call is gone. */
class Sink {
  closed = false;
  constructor(private readonly call: ReadCall) {
    const close = () => {
      this.closed = true;
    };
    call.on('cancelled', close);
    call.on('close', close);
    call.on('finish', close);
  }

  async write(message: streamsPb.ReadResp): Promise<void> {
    if (this.closed) return;
    if (this.call.write(message)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.call.off('drain', done);
        this.call.off('cancelled', done);
        this.call.off('close', done);
        resolve();
      };
      this.call.on('drain', done);
      this.call.on('cancelled', done);
      this.call.on('close', done);
    });
  }

  end(): void {
    if (!this.closed) this.call.end();
  }

  fail(error: ServerErrorResponse): void {
    if (!this.closed) this.call.emit('error', error);
    this.closed = true;
  }
}

async function read(log: EventLog, open: OpenCalls, call: ReadCall): Promise<void> {
  const options = call.request.getOptions();
  if (!options) return void call.emit('error', errors.invalid('ReadReq has no options'));
  let filter: Filter | null;
  try {
    filter = filterOf(options);
  } catch {
    return void call.emit('error', errors.invalid('the filter is not a valid regular expression'));
  }
  const ctx: ReadContext = {
    log,
    sink: new Sink(call),
    format: options.getUuidOption()?.hasStructured() ? 'structured' : 'string',
    resolveLinks: options.getResolveLinks(),
    filter,
  };
  const direction = options.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.BACKWARDS ? 'backwards' : 'forwards';
  if (options.hasStream()) {
    const so = options.getStream()!;
    const streamId = streamNameOf(so.getStreamIdentifier());
    if (streamId === null) return ctx.sink.fail(errors.invalid('ReadReq names no stream'));
    const from = so.hasRevision() ? BigInt(so.getRevision()) : so.hasEnd() ? 'end' : 'start';
    if (options.hasSubscription()) return subscribe(ctx, open, call, { kind: 'stream', streamId, from });
    return readStream(ctx, streamId, from, direction, BigInt(options.getCount()));
  }
  const ao = options.getAll();
  if (!ao) return ctx.sink.fail(errors.invalid('ReadReq names neither a stream nor $all'));
  const from = ao.hasPosition() ? BigInt(ao.getPosition()!.getCommitPosition()) : ao.hasEnd() ? 'end' : 'start';
  if (options.hasSubscription()) return subscribe(ctx, open, call, { kind: 'all', from });
  return readAll(ctx, from, direction, BigInt(options.getCount()));
}

type ReadContext = {
  readonly log: EventLog;
  readonly sink: Sink;
  readonly format: UuidFormat;
  readonly resolveLinks: boolean;
  readonly filter: Filter | null;
};

/** The answer for one event: a `$>` link resolved to its target when asked, as EventStoreDB does. */
function answer(ctx: ReadContext, e: Recorded, inAll: boolean): streamsPb.ReadResp {
  if (ctx.resolveLinks && e.type === '$>') return eventResp(ctx.log.resolveLink(e), e, inAll, ctx.format);
  return eventResp(e, null, inAll, ctx.format);
}

async function readStream(
  ctx: ReadContext,
  streamId: string,
  from: 'start' | 'end' | bigint,
  direction: 'forwards' | 'backwards',
  count: bigint,
): Promise<void> {
  const result = ctx.log.readStream(streamId, from, direction, count);
  if (result.kind === 'deleted') return ctx.sink.fail(errors.streamDeleted(streamId));
  if (result.kind === 'not_found') await ctx.sink.write(streamNotFoundResp(streamId));
  else for (const e of result.events) await ctx.sink.write(answer(ctx, e, false));
  ctx.sink.end();
}

/** $all from a position: forwards includes the event at it, backwards starts just before it. */
async function readAll(
  ctx: ReadContext,
  from: 'start' | 'end' | bigint,
  direction: 'forwards' | 'backwards',
  count: bigint,
): Promise<void> {
  const { log } = ctx;
  const end = log.length;
  const step = direction === 'forwards' ? 1 : -1;
  let i: number;
  if (direction === 'forwards') i = from === 'start' ? 0 : from === 'end' ? end : log.firstIndexAtOrAfter(from);
  else i = from === 'end' ? end - 1 : from === 'start' ? -1 : log.firstIndexAtOrAfter(from) - 1;
  for (let sent = 0n; i >= 0 && i < end && sent < count && !ctx.sink.closed; i += step) {
    const e = log.at(i)!;
    if (ctx.filter && !ctx.filter.matches(e)) continue;
    await ctx.sink.write(answer(ctx, e, true));
    sent++;
  }
  ctx.sink.end();
}

type Target =
  | { readonly kind: 'all'; readonly from: 'start' | 'end' | bigint }
  | { readonly kind: 'stream'; readonly streamId: string; readonly from: 'start' | 'end' | bigint };

/**
 * A catch-up subscription: confirmation, the past after `from` (exclusive), caught_up, then every
 * new event. Filtered ones send a checkpoint every `checkpointEvery` events examined.
 */
async function subscribe(ctx: ReadContext, open: OpenCalls, call: ReadCall, target: Target): Promise<void> {
  const { log, sink, filter } = ctx;
  const inAll = target.kind === 'all';
  let cursor: number;
  let wanted: (e: Recorded) => boolean;
  if (target.kind === 'all') {
    cursor = target.from === 'start' ? 0 : target.from === 'end' ? log.length : log.firstIndexAtOrAfter(target.from + 1n);
    wanted = () => true;
  } else {
    const { streamId, from } = target;
    if (log.isTombstoned(streamId)) return sink.fail(errors.streamDeleted(streamId));
    cursor = from === 'start' ? 0 : from === 'end' ? log.length : (log.indexAfterRevision(streamId, from) ?? 0);
    wanted = typeof from === 'bigint' ? (e) => e.streamId === streamId && e.revision > from : (e) => e.streamId === streamId;
  }
  await sink.write(confirmationResp(randomUUID()));

  let caughtUp = false;
  let pumping = false;
  let again = false;
  let examined = 0;
  const pump = async () => {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        while (cursor < log.length && !sink.closed) {
          const e = log.at(cursor++)!;
          if (!wanted(e)) continue;
          if (!inAll && e.revision === TOMBSTONE_REVISION) return stop(errors.streamDeleted(e.streamId));
          if (!filter || filter.matches(e)) await sink.write(answer(ctx, e, inAll));
          if (filter && ++examined >= filter.checkpointEvery) {
            examined = 0;
            await sink.write(checkpointResp(e.position));
          }
        }
        if (!caughtUp && !sink.closed) {
          caughtUp = true;
          await sink.write(caughtUpResp());
        }
      } while (again && !sink.closed);
    } finally {
      pumping = false;
    }
  };
  const unsubscribe = log.onWrite(() => void pump());
  const release = () => {
    unsubscribe();
    open.delete(release);
  };
  const stop = (error?: ServerErrorResponse) => {
    release();
    if (error) sink.fail(error);
    else sink.end();
  };
  open.add(release);
  call.on('cancelled', () => stop());
  call.on('close', () => stop());
  await pump();
}

function append(
  log: EventLog,
  limits: Limits,
  call: ServerReadableStream<streamsPb.AppendReq, streamsPb.AppendResp>,
  callback: sendUnaryData<streamsPb.AppendResp>,
): void {
  let answered = false;
  const reply: sendUnaryData<streamsPb.AppendResp> = (...args) => {
    if (answered) return;
    answered = true;
    callback(...args);
  };
  // Failures are answered at once, as the server throws mid-stream; the client may still be writing.
  const fail = (error: ServerErrorResponse) => reply(error);
  const denied = authFailure(call.metadata);
  if (denied) fail(denied);
  let options: streamsPb.AppendReq.Options | null = null;
  const proposed: Proposed[] = [];
  let size = 0;
  call.on('data', (req: streamsPb.AppendReq) => {
    if (answered) return;
    if (req.hasOptions()) {
      if (options) return fail(errors.invalid('AppendReq options sent twice'));
      options = req.getOptions()!;
      return;
    }
    const message = req.getProposedMessage();
    if (!message || !options) return fail(errors.invalid('AppendReq must start with options'));
    const p = proposedOf(message);
    if ('missing' in p) fail(errors.missingMetadata(p.missing));
    else if ('badId' in p) fail(errors.invalid('a proposed message has no valid id'));
    else if ((size += sizeOnDisk(p)) > limits.maxAppendSize) fail(errors.maxAppendSize(limits.maxAppendSize));
    else proposed.push(p);
  });
  call.on('end', () => {
    const o: streamsPb.AppendReq.Options | null = options;
    if (answered) return;
    if (!o) return fail(errors.invalid('AppendReq sent no options'));
    const streamId = streamNameOf(o.getStreamIdentifier());
    if (streamId === null) return fail(errors.invalid('AppendReq names no stream'));
    const expected = expectedOf(o);
    const outcome = log.append(streamId, expected, proposed);
    if (outcome.kind === 'stream_deleted') return fail(errors.streamDeleted(streamId));
    if (outcome.kind === 'wrong_expected_version') return reply(null, appendWrongVersion(outcome.current, expected));
    reply(null, appendSuccess(outcome.revision, outcome.position));
  });
  call.on('error', () => undefined);
}

type PendingBatch = {
  readonly correlationId: sharedPb.UUID;
  readonly options: streamsPb.BatchAppendReq.Options;
  readonly proposed: Proposed[];
  size: number;
  failure: statusPb.Status | null;
  /** Set once its one answer is out (a deadline can answer before the last request arrives). */
  answered: boolean;
  timer?: NodeJS.Timeout;
};

/** setTimeout's longest delay; a later deadline is checked when the append completes instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One long-lived bidi call carries many appends, each a run of requests under one correlation id
 * (options on the first, is_final on the last), each answered once, in band.
 */
function batchAppend(
  log: EventLog,
  limits: Limits,
  open: OpenCalls,
  call: ServerDuplexStream<streamsPb.BatchAppendReq, streamsPb.BatchAppendResp>,
): void {
  const denied = authFailure(call.metadata);
  if (denied) return void call.emit('error', denied);
  const pending = new Map<string, PendingBatch>();
  const answer = (batch: PendingBatch, resp: streamsPb.BatchAppendResp) => {
    clearTimeout(batch.timer);
    if (batch.answered) return;
    batch.answered = true;
    call.write(resp);
  };
  const forget = () => {
    for (const batch of pending.values()) clearTimeout(batch.timer);
    pending.clear();
    open.delete(forget);
  };
  open.add(forget);
  call.on('data', (req: streamsPb.BatchAppendReq) => {
    const correlationId = req.getCorrelationId();
    const key = correlationId ? JSON.stringify(correlationId.toObject()) : null;
    if (!correlationId || key === null) return void call.emit('error', errors.invalid('BatchAppendReq has no correlation id'));
    let batch = pending.get(key);
    if (!batch) {
      const options = req.getOptions();
      if (!options) return void call.emit('error', errors.invalid('BatchAppendReq must start with options'));
      const started: PendingBatch = { correlationId, options, proposed: [], size: 0, failure: null, answered: false };
      const wait = (options.getDeadline()?.toDate().getTime() ?? Infinity) - Date.now();
      // The deadline runs from the first request, as the server's own timer does, not from the last.
      if (wait <= MAX_TIMER_MS)
        started.timer = setTimeout(() => answer(started, failedBatch(started, batchErrors.timeout())), Math.max(0, wait));
      batch = started;
      pending.set(key, batch);
    }
    for (const message of req.getProposedMessagesList()) {
      if (batch.failure || batch.answered) break;
      const p = proposedOf(message);
      if ('missing' in p) batch.failure = batchErrors.unknown(`Required Metadata Properties Missing: ${p.missing.join(', ')}`);
      else if ('badId' in p) batch.failure = batchErrors.unknown('a proposed message has no valid id');
      else if ((batch.size += sizeOnDisk(p)) > limits.maxAppendSize) batch.failure = batchErrors.maxAppendSize(limits.maxAppendSize);
      else batch.proposed.push(p);
    }
    // A failed batch is answered at once and keeps nothing while the rest of it streams in.
    if (batch.failure && !batch.answered) {
      batch.proposed.length = 0;
      answer(batch, failedBatch(batch, batch.failure));
    }
    if (!req.getIsFinal()) return;
    pending.delete(key);
    if (!batch.answered) answer(batch, commitBatch(log, batch));
  });
  call.on('end', () => {
    forget();
    call.end();
  });
  call.on('cancelled', forget);
  call.on('error', () => undefined);
}

function failedBatch(batch: PendingBatch, error: statusPb.Status): streamsPb.BatchAppendResp {
  const streamId = streamNameOf(batch.options.getStreamIdentifier()) ?? '';
  return batchResp(batch.correlationId, streamId, expectedOf(batch.options)).setError(error);
}

function commitBatch(log: EventLog, batch: PendingBatch): streamsPb.BatchAppendResp {
  if (batch.failure) return failedBatch(batch, batch.failure);
  const deadline = batch.options.getDeadline()?.toDate().getTime();
  if (deadline !== undefined && deadline < Date.now()) return failedBatch(batch, batchErrors.timeout());
  const streamId = streamNameOf(batch.options.getStreamIdentifier()) ?? '';
  const expected = expectedOf(batch.options);
  const outcome = log.append(streamId, expected, batch.proposed);
  if (outcome.kind === 'stream_deleted') return failedBatch(batch, batchErrors.streamDeleted(streamId));
  if (outcome.kind === 'wrong_expected_version') return failedBatch(batch, batchErrors.wrongExpectedVersion(outcome.current, expected));
  return batchSuccess(batchResp(batch.correlationId, streamId, expected), outcome.revision, outcome.position);
}

type RemoveOptions = streamsPb.DeleteReq.Options | streamsPb.TombstoneReq.Options;

/** A soft delete or a tombstone: the position written, or the error to answer with. */
function remove(
  log: EventLog,
  metadata: Metadata,
  options: RemoveOptions | undefined,
  kind: 'delete' | 'tombstone',
): bigint | ServerErrorResponse {
  const denied = authFailure(metadata);
  if (denied) return denied;
  const streamId = streamNameOf(options?.getStreamIdentifier());
  if (!options || streamId === null) return errors.invalid(`${kind} names no stream`);
  const expected = expectedOf(options);
  const outcome = kind === 'delete' ? log.softDelete(streamId, expected) : log.tombstone(streamId, expected);
  if (outcome.kind === 'stream_deleted') return errors.streamDeleted(streamId);
  if (outcome.kind === 'wrong_expected_version') return wrongExpectedVersionError(streamId, expected, outcome.current);
  return outcome.position ?? 0n;
}

/** Delete and Tombstone report a wrong expected version as an error, its versions in trailers. */
function wrongExpectedVersionError(streamId: string, expected: Expected, current: bigint | null): ServerErrorResponse {
  // ExpectedVersion's numbers in EventStoreDB: NoStream -1, Any -2, StreamExists -4.
  const expectedVersion =
    expected.kind === 'revision'
      ? expected.revision.toString()
      : expected.kind === 'no_stream'
        ? '-1'
        : expected.kind === 'any'
          ? '-2'
          : '-4';
  const trailers: Record<string, string> = {
    exception: 'wrong-expected-version',
    'stream-name': streamId,
    'expected-version': expectedVersion,
  };
  if (current !== null) trailers['actual-version'] = current.toString();
  return rpcError(
    status.FAILED_PRECONDITION,
    `Append failed due to WrongExpectedVersion. Stream: ${streamId}, Expected version: ${expectedVersion}`,
    trailers,
  );
}
