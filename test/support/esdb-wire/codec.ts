// Protobuf messages of the client's own generated code <-> the log's plain values, and the
// error shapes (status codes, `exception` trailers, google.rpc.Status details) the client maps.
import { Metadata, status, type ServerErrorResponse } from '@grpc/grpc-js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import statusPb from '@eventstore/db-client/generated/status_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import anyPb from 'google-protobuf/google/protobuf/any_pb.js';
import emptyPb from 'google-protobuf/google/protobuf/empty_pb.js';
import type { Expected, Proposed, Recorded } from './log.js';

export type UuidFormat = 'string' | 'structured';

/** EventStoreDB's default for the largest append it takes, counted as sizeOnDisk counts. */
export const DEFAULT_MAX_APPEND_SIZE = 1024 * 1024;

/** EventStoreDB's Event.SizeOnDisk: data and metadata bytes, the type's UTF-16 length twice over. */
export function sizeOnDisk(p: Proposed): number {
  return p.data.length + p.customMetadata.length + p.type.length * 2;
}

const utf8 = new TextDecoder('utf-8');
const UUID_HEX = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function streamNameOf(id: sharedPb.StreamIdentifier | undefined): string | null {
  return id ? utf8.decode(id.getStreamName_asU8()) : null;
}

export function streamIdentifier(name: string): sharedPb.StreamIdentifier {
  return new sharedPb.StreamIdentifier().setStreamName(new TextEncoder().encode(name));
}

/** A UUID in either wire form as its lower-case string, or null where it is missing or malformed. */
export function uuidOf(u: sharedPb.UUID | undefined): string | null {
  if (!u) return null;
  if (u.hasStructured()) {
    const s = u.getStructured()!;
    const hex = (v: string) => BigInt.asUintN(64, BigInt(v)).toString(16).padStart(16, '0');
    const h = hex(s.getMostSignificantBits()) + hex(s.getLeastSignificantBits());
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  const text = u.getString();
  return UUID_HEX.test(text) ? text.toLowerCase() : null;
}

export function toUuid(id: string, format: UuidFormat): sharedPb.UUID {
  const uuid = new sharedPb.UUID();
  if (format === 'string') return uuid.setString(id);
  const hex = id.replaceAll('-', '');
  // The structured form carries each half as a signed 64-bit number.
  const half = (h: string) => BigInt.asIntN(64, BigInt(`0x${h}`)).toString();
  return uuid.setStructured(
    new sharedPb.UUID.Structured().setMostSignificantBits(half(hex.slice(0, 16))).setLeastSignificantBits(half(hex.slice(16))),
  );
}

type ProposedMessage = streamsPb.AppendReq.ProposedMessage | streamsPb.BatchAppendReq.ProposedMessage;

/** A proposed event, or the metadata keys it lacks. The server keeps only whether it is JSON. */
export function proposedOf(m: ProposedMessage): Proposed | { readonly missing: readonly string[] } | { readonly badId: true } {
  const metadata = m.getMetadataMap();
  const type = metadata.get('type');
  const contentType = metadata.get('content-type');
  const missing = [type === undefined ? 'type' : null, contentType === undefined ? 'content-type' : null].filter((k) => k !== null);
  if (missing.length > 0) return { missing };
  const id = uuidOf(m.getId());
  if (id === null) return { badId: true };
  return {
    id,
    type: type!,
    contentType: contentType === 'application/json' ? 'application/json' : 'application/octet-stream',
    data: m.getData_asU8(),
    customMetadata: m.getCustomMetadata_asU8(),
  };
}

type ExpectationOptions = {
  hasAny(): boolean;
  hasNoStream(): boolean;
  hasStreamExists(): boolean;
};

/** The expectation of Append, Delete and Tombstone options (`revision`) or BatchAppend's (`stream_position`). */
export function expectedOf(
  o: ExpectationOptions &
    ({ hasRevision(): boolean; getRevision(): string } | { hasStreamPosition(): boolean; getStreamPosition(): string }),
): Expected {
  if ('hasRevision' in o && o.hasRevision()) return { kind: 'revision', revision: BigInt(o.getRevision()) };
  if ('hasStreamPosition' in o && o.hasStreamPosition()) return { kind: 'revision', revision: BigInt(o.getStreamPosition()) };
  if (o.hasNoStream()) return { kind: 'no_stream' };
  if (o.hasStreamExists()) return { kind: 'stream_exists' };
  return { kind: 'any' };
}

export function recordedEvent(e: Recorded, format: UuidFormat): streamsPb.ReadResp.ReadEvent.RecordedEvent {
  const r = new streamsPb.ReadResp.ReadEvent.RecordedEvent()
    .setId(toUuid(e.id, format))
    .setStreamIdentifier(streamIdentifier(e.streamId))
    .setStreamRevision(e.revision.toString())
    .setPreparePosition(e.position.toString())
    .setCommitPosition(e.position.toString())
    .setCustomMetadata(e.customMetadata)
    .setData(e.data);
  const metadata = r.getMetadataMap();
  metadata.set('type', e.type);
  metadata.set('content-type', e.contentType);
  metadata.set('created', e.created.toString());
  return r;
}

/**
 * A read answer. `link` is the `$>` event when the event was reached through it; `inAll` says the
 * read was over $all, whose answers carry the commit position of what was read.
 */
export function eventResp(event: Recorded | null, link: Recorded | null, inAll: boolean, format: UuidFormat): streamsPb.ReadResp {
  const read = new streamsPb.ReadResp.ReadEvent();
  if (event) read.setEvent(recordedEvent(event, format));
  if (link) read.setLink(recordedEvent(link, format));
  const original = link ?? event;
  if (inAll && original) read.setCommitPosition(original.position.toString());
  else read.setNoPosition(new sharedPb.Empty());
  return new streamsPb.ReadResp().setEvent(read);
}

export function checkpointResp(position: bigint): streamsPb.ReadResp {
  return new streamsPb.ReadResp().setCheckpoint(
    new streamsPb.ReadResp.Checkpoint().setCommitPosition(position.toString()).setPreparePosition(position.toString()),
  );
}

export function confirmationResp(subscriptionId: string): streamsPb.ReadResp {
  return new streamsPb.ReadResp().setConfirmation(new streamsPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(subscriptionId));
}

export function caughtUpResp(): streamsPb.ReadResp {
  return new streamsPb.ReadResp().setCaughtUp(new streamsPb.ReadResp.CaughtUp());
}

export function streamNotFoundResp(streamId: string): streamsPb.ReadResp {
  return new streamsPb.ReadResp().setStreamNotFound(
    new streamsPb.ReadResp.StreamNotFound().setStreamIdentifier(streamIdentifier(streamId)),
  );
}

/** A gRPC error with the `exception` trailer (and its companions) the client turns into a typed error. */
export function rpcError(code: status, details: string, trailers: Record<string, string> = {}): ServerErrorResponse {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(trailers)) metadata.set(key, value);
  return Object.assign(new Error(details), { code, details, metadata });
}

export const errors = {
  streamDeleted: (streamId: string) =>
    rpcError(status.FAILED_PRECONDITION, `Event stream '${streamId}' is deleted.`, {
      exception: 'stream-deleted',
      'stream-name': streamId,
    }),
  maxAppendSize: (limit: number) =>
    rpcError(status.INVALID_ARGUMENT, `Maximum Append Size of ${limit} Exceeded.`, {
      exception: 'maximum-append-size-exceeded',
      'maximum-append-size': String(limit),
    }),
  missingMetadata: (missing: readonly string[]) =>
    rpcError(status.INVALID_ARGUMENT, `Required Metadata Properties Missing: ${missing.join(', ')}`, {
      exception: 'missing-required-metadata-property',
      'required-metadata-properties': missing.join(','),
    }),
  invalid: (details: string) => rpcError(status.INVALID_ARGUMENT, details),
  unauthenticated: () => rpcError(status.UNAUTHENTICATED, 'Bad HTTP status code: 401'),
};

export function appendWrongVersion(current: bigint | null, expected: Expected): streamsPb.AppendResp {
  const [c, x] = [current, expected];
  const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
  if (c === null) wrong.setCurrentNoStream(new sharedPb.Empty());
  else wrong.setCurrentRevision(c.toString());
  if (x.kind === 'revision') wrong.setExpectedRevision(x.revision.toString());
  else if (x.kind === 'no_stream') wrong.setExpectedNoStream(new sharedPb.Empty());
  else if (x.kind === 'stream_exists') wrong.setExpectedStreamExists(new sharedPb.Empty());
  else wrong.setExpectedAny(new sharedPb.Empty());
  return new streamsPb.AppendResp().setWrongExpectedVersion(wrong);
}

export function appendSuccess(revision: bigint | null, position: bigint | null): streamsPb.AppendResp {
  const success = new streamsPb.AppendResp.Success();
  if (revision === null) success.setNoStream(new sharedPb.Empty());
  else success.setCurrentRevision(revision.toString());
  if (position === null) success.setNoPosition(new sharedPb.Empty());
  else
    success.setPosition(new streamsPb.AppendResp.Position().setCommitPosition(position.toString()).setPreparePosition(position.toString()));
  return new streamsPb.AppendResp().setSuccess(success);
}

/** The start of a BatchAppend answer: which request and stream it is for, and what was expected. */
export function batchResp(correlationId: sharedPb.UUID, streamId: string, expected: Expected): streamsPb.BatchAppendResp {
  const resp = new streamsPb.BatchAppendResp().setCorrelationId(correlationId).setStreamIdentifier(streamIdentifier(streamId));
  if (expected.kind === 'revision') resp.setStreamPosition(expected.revision.toString());
  else if (expected.kind === 'no_stream') resp.setNoStream(new emptyPb.Empty());
  else if (expected.kind === 'stream_exists') resp.setStreamExists(new emptyPb.Empty());
  else resp.setAny(new emptyPb.Empty());
  return resp;
}

export function batchSuccess(resp: streamsPb.BatchAppendResp, revision: bigint | null, position: bigint | null): streamsPb.BatchAppendResp {
  const success = new streamsPb.BatchAppendResp.Success();
  if (revision === null) success.setNoStream(new emptyPb.Empty());
  else success.setCurrentRevision(revision.toString());
  if (position === null) success.setNoPosition(new emptyPb.Empty());
  else success.setPosition(new sharedPb.AllStreamPosition().setCommitPosition(position.toString()).setPreparePosition(position.toString()));
  return resp.setSuccess(success);
}

/** BatchAppend reports failures in band, as a google.rpc.Status whose details name the kind. */
export const batchErrors = {
  wrongExpectedVersion(current: bigint | null, expected: Expected): statusPb.Status {
    const details = new sharedPb.WrongExpectedVersion();
    if (current === null) details.setCurrentNoStream(new emptyPb.Empty());
    else details.setCurrentStreamRevision(current.toString());
    if (expected.kind === 'revision') details.setExpectedStreamPosition(expected.revision.toString());
    else if (expected.kind === 'no_stream') details.setExpectedNoStream(new emptyPb.Empty());
    else if (expected.kind === 'stream_exists') details.setExpectedStreamExists(new emptyPb.Empty());
    else details.setExpectedAny(new emptyPb.Empty());
    return rpcStatus(status.FAILED_PRECONDITION, 'WrongExpectedVersion', 'event_store.client.WrongExpectedVersion', details);
  },
  streamDeleted(streamId: string): statusPb.Status {
    const details = new sharedPb.StreamDeleted().setStreamIdentifier(streamIdentifier(streamId));
    return rpcStatus(status.FAILED_PRECONDITION, `Event stream '${streamId}' is deleted.`, 'event_store.client.StreamDeleted', details);
  },
  timeout(): statusPb.Status {
    return rpcStatus(status.DEADLINE_EXCEEDED, 'Timeout', 'event_store.client.Timeout', new sharedPb.Timeout());
  },
  maxAppendSize(limit: number): statusPb.Status {
    const details = new sharedPb.MaximumAppendSizeExceeded().setMaxappendsize(limit);
    return rpcStatus(
      status.INVALID_ARGUMENT,
      `Maximum Append Size of ${limit} Exceeded.`,
      'event_store.client.MaximumAppendSizeExceeded',
      details,
    );
  },
  unknown(message: string): statusPb.Status {
    return rpcStatus(status.INVALID_ARGUMENT, message, 'event_store.client.Unknown', new sharedPb.Unknown());
  },
};

function rpcStatus(code: status, message: string, typeName: string, details: { serializeBinary(): Uint8Array }): statusPb.Status {
  const any = new anyPb.Any();
  any.pack(details.serializeBinary(), typeName);
  // status.proto's Code enum and grpc-js's status share their numbers.
  return new statusPb.Status().setCode(Number(code)).setMessage(message).setDetails(any);
}
