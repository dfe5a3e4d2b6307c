/**
 * An in-memory EventStoreDB (KurrentDB) gRPC server for tests, so the real `@eventstore/db-client`
 * and the EventStoreDB adapter run against the wire protocol without a database.
 *
 * Serves, with the client's own generated service definitions:
 * - ServerFeatures.GetSupportedMethods, as a 24.10 node: the client then appends through BatchAppend,
 *   and through Append when a call carries its own credentials;
 * - Streams.Read: streams and $all, forwards and backwards, filters, `$>` link resolution, and
 *   catch-up subscriptions (confirmation, the past, caught_up, live; checkpoints when filtered);
 * - Streams.Append / BatchAppend with every expected-revision mode, idempotent retries (answered
 *   without a position), the append size limit (1 MiB unless `maxAppendSize`) and BatchAppend
 *   deadlines; Streams.Delete (soft, via $tb) and Tombstone; `$maxCount`/`$maxAge`/`$tb` on reads.
 * Everything else (gossip, projections, persistent subscriptions, users, operations) answers
 * UNIMPLEMENTED. Stream ACLs are stored but not enforced; credentials are checked against the default
 * users (admin/ops, password changeit) only when the client sends them, which it does over TLS only.
 * Each event is its own commit: commit position = prepare position, growing by the record's size.
 * A fresh server holds a few `$` system events, as a new node does.
 *
 * Start: `const esdb = await startEsdbWire()`, connect with `esdb.url`
 * (`esdb://127.0.0.1:<port>?tls=false`), `await esdb.close()` when done: it cuts open calls as a node
 * going down does (clients see CANCELLED). Pass `{ tls: { key, cert } }` to serve TLS instead (the
 * caller then trusts its own CA in the client).
 */
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import serverFeaturesGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import serverFeaturesPb from '@eventstore/db-client/generated/serverfeatures_pb.js';
import type sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import { DEFAULT_MAX_APPEND_SIZE } from './codec.js';
import { EventLog } from './log.js';
import { authFailure, streamsService, type OpenCalls } from './streams.js';

/** What GetSupportedMethods reports; 24.10 is past every version check of client 6.x (caught_up included). */
export const SERVER_VERSION = '24.10.0';

export type EsdbWire = {
  /** A connection string the client takes as it is. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
};

export type EsdbWireOptions = {
  readonly tls?: { readonly key: Buffer; readonly cert: Buffer };
  /** Bytes an append may carry (EVENTSTORE_MAX_APPEND_SIZE); 1 MiB when not given. */
  readonly maxAppendSize?: number;
};

export async function startEsdbWire(options: EsdbWireOptions = {}): Promise<EsdbWire> {
  const log = new EventLog();
  const open: OpenCalls = new Set();
  const server = new Server();
  server.addService(
    streamsGrpc.StreamsService,
    streamsService(log, open, { maxAppendSize: options.maxAppendSize ?? DEFAULT_MAX_APPEND_SIZE }),
  );
  server.addService(serverFeaturesGrpc.ServerFeaturesService, {
    getSupportedMethods: (
      call: ServerUnaryCall<sharedPb.Empty, serverFeaturesPb.SupportedMethods>,
      callback: sendUnaryData<serverFeaturesPb.SupportedMethods>,
    ) => {
      const denied = authFailure(call.metadata);
      if (denied) return callback(denied);
      callback(null, supportedMethods());
    },
  });
  const credentials = options.tls
    ? ServerCredentials.createSsl(null, [{ private_key: options.tls.key, cert_chain: options.tls.cert }])
    : ServerCredentials.createInsecure();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    url: `esdb://127.0.0.1:${port}?tls=${options.tls ? 'true' : 'false'}`,
    port,
    close: async () => {
      for (const release of [...open]) release();
      // Cuts every call, as a node going down does: clients see their calls fail, not end cleanly.
      server.forceShutdown();
    },
  };
}

function supportedMethods(): serverFeaturesPb.SupportedMethods {
  const method = (service: string, name: string, features: string[] = []) =>
    new serverFeaturesPb.SupportedMethod().setServiceName(service).setMethodName(name).setFeaturesList(features);
  const streams = 'event_store.client.streams.streams';
  return new serverFeaturesPb.SupportedMethods()
    .setEventStoreServerVersion(SERVER_VERSION)
    .setMethodsList([
      method(streams, 'read', ['position', 'events']),
      method(streams, 'append'),
      method(streams, 'batchappend'),
      method(streams, 'delete'),
      method(streams, 'tombstone'),
      method('event_store.client.server_features.serverfeatures', 'getsupportedmethods'),
    ]);
}
