import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { SentStatements } from './sent-statements.js';
import { SharedRoundTrips } from './shared-round-trips.js';
import { submit } from './submit.js';
import {
  IN_FAILED_TRANSACTION,
  type Lease,
  type QueryResult,
  type Row,
  type SqlDb,
  type SqlExecutor,
  type TransactionOptions,
} from './sql.js';

const LEASE_SQL = 'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got';
const UNLEASE_SQL = 'SELECT pg_advisory_unlock(hashtextextended($1, 0))';
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * A listener connection's application_name, which every session can read in pg_stat_activity:
 * `dss-listen <its database's tag> <channel>…`, so an instance can tell whether anyone else
 * listens on a channel (listenedElsewhere). Within PostgreSQL's 63 bytes for the service's channels.
 */
const LISTENER_MARK = 'dss-listen';
const AUDIENCE_SQL = `SELECT application_name AS name FROM pg_stat_activity
  WHERE datname = current_database() AND starts_with(application_name, $1) AND NOT starts_with(application_name, $2)`;
/**
 * How long a look at who listens is trusted: a listener that joins is notified from at most this
 * long after; meanwhile it hears by polling, as after a lost notification.
 */
const AUDIENCE_TTL_MS = 1_000;
/**
 * Values PostgreSQL compresses (a consent receipt's JWS, a receipt event's data: a few kB each) go
 * compressed with lz4 rather than pglz, which costs several times the CPU for about the same size
 * (docs/decisions.md, "Read models"): a session setting, so no table is altered or locked, and only
 * where the server offers lz4, so that a server built without it is never sent a value it refuses.
 */
const LZ4_WHERE_OFFERED = `SELECT set_config('default_toast_compression', 'lz4', false) FROM pg_settings
  WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)`;
/**
 * Distinct statement texts a pool prepares. The service's own SQL is a few hundred texts; one
 * built with a name in it (a rebuild's schema) may be new each time, so past this bound texts run
 * unnamed as before rather than fill every connection's memory.
 */
const MAX_NAMED = 500;

/**
 * What a query sent was (one protocol query: a prepared statement's run, or a simple query that may
 * hold several statements): one outside a transaction, committed alone (they share round trips),
 * one of a transaction (BEGIN and COMMIT included), or other (schema, leases, LISTEN, health checks).
 */
export type QueryKind = 'autocommit' | 'transaction' | 'other';

export type PostgresDbOptions = {
  readonly max?: number;
  readonly applicationName?: string;
  /** Told of every query sent, as it is sent: the service counts them (db_queries_total). */
  readonly onQuery?: (kind: QueryKind) => void;
  /** How long listenedElsewhere trusts its last look (AUDIENCE_TTL_MS). */
  readonly audienceTtlMs?: number;
};

/** SqlDb over node-postgres: a pool for queries, one extra connection for leases, one for LISTEN. */
export class PostgresDb implements SqlDb {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly reads: SharedRoundTrips;
  private leaseConn: Promise<{ client: pg.Client; lost: Promise<void> }> | null = null;
  private listenConn: Promise<pg.Client> | null = null;
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();
  /** Tells this database's listener connection from every other in pg_stat_activity. */
  private readonly listenerTag = randomBytes(4).toString('hex');
  /** The channels other connections listened on at the last look, or null when that look failed. */
  private audience: { readonly at: number; readonly channels: ReadonlySet<string> | null } | null = null;
  private audienceRead: Promise<void> | null = null;
  private readonly audienceTtlMs: number;
  private closed = false;

  private readonly applicationName: string;
  /** Statement text → its name: each connection parses and plans a named statement once, then only binds and runs it. */
  private readonly names = new Map<string, string>();

  private readonly counted: (kind: QueryKind) => void;

  constructor(
    private readonly url: string,
    options: PostgresDbOptions = {},
  ) {
    this.applicationName = options.applicationName ?? 'data-sharing-service';
    this.counted = options.onQuery ?? (() => undefined);
    this.audienceTtlMs = options.audienceTtlMs ?? AUDIENCE_TTL_MS;
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      application_name: this.applicationName,
      // A server that does not answer (a network that drops packets rather than refusing) must not
      // hold requests past a bound: they answer 503 (R-REL-01) and the next one tries again.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // A transaction's statements that do not wait for each other's answers share a round trip (transaction()).
      pipeline: true,
      // A set-based statement over thousands of rows passes the planner's JIT threshold and would
      // spend more compiling than running (docs/performance.md, "How the fast path is built").
      options: '-c jit=off',
    });
    // An idle client that loses its server must not crash the process; the next query reconnects.
    this.pool.on('error', () => undefined);
    // Sent before the pool hands the connection out, so it runs ahead of every statement on it;
    // should it fail (a connection lost), the statements after it fail and answer for it.
    this.pool.on('connect', (client) => void client.query(LZ4_WHERE_OFFERED).catch(() => undefined));
    this.reads = new SharedRoundTrips(this.pool);
  }

  async query<R extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    this.counted('autocommit');
    const r = await this.reads.query<R>(this.statement(text, params));
    return { rows: r.rows, rowCount: r.rowCount ?? 0 };
  }

  /**
   * A statement with parameters goes prepared under a name derived from its text: PostgreSQL then
   * parses it once per connection and, after a few runs, plans it once (a generic plan) instead of
   * on every call, which was about a third of the server's time for an append. A plan still
   * follows search_path and any change of the tables it reads, as PostgreSQL revalidates cached
   * plans. A statement without parameters stays a simple query (it may hold several statements).
   */
  private statement(text: string, params: readonly unknown[]): pg.QueryConfig {
    const values = params as unknown[];
    if (values.length === 0) return { text, values };
    let name = this.names.get(text);
    if (name === undefined && this.names.size < MAX_NAMED) {
      name = `dss_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
      this.names.set(text, name);
    }
    return name === undefined ? { text, values } : { name, text, values };
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    // A connection cut mid-transaction surfaces as the pending query's rejection; without a
    // listener the client's 'error' event would also crash the process.
    const onError = () => {
      broken = true;
    };
    client.on('error', onError);
    // What a transaction sends in one tick leaves in one write: BEGIN with its first statement, the
    // inline read models' statements with COMMIT (SqlExecutor).
    const stream = client.connection.stream;
    let corked = false;
    const send = <R extends Row>(config: string | pg.QueryConfig): Promise<pg.QueryResult<R>> => {
      if (!corked) {
        corked = true;
        stream.cork();
        process.nextTick(() => {
          corked = false;
          stream.uncork();
        });
      }
      this.counted('transaction');
      return submit<R>(client, typeof config === 'string' ? { text: config } : config);
    };
    const sent = new SentStatements();
    try {
      // BEGIN goes first, so that nothing sent behind it can run outside the transaction. The
      // prelude (no parameters) goes in the same simple query, behind BEGIN in the one message:
      // if it fails, the transaction it opened is aborted and COMMIT answers ROLLBACK.
      void sent.track(send(options.prelude ? `BEGIN; ${options.prelude}` : 'BEGIN'));
      const tx: SqlExecutor = {
        query: <R extends Row = Row>(text: string, params: readonly unknown[] = []) =>
          sent.track(send<R>(this.statement(text, params)).then((r) => ({ rows: r.rows, rowCount: r.rowCount ?? 0 }))),
      };
      const result = await fn(tx);
      // Behind whatever fn sent without waiting for its answer, in the same write when fn sent it
      // last. A transaction that failed answers COMMIT with ROLLBACK, and no error of its own.
      const [committed, cause] = await Promise.all([send('COMMIT'), sent.cause()]);
      if (committed.command !== 'COMMIT') throw cause ?? new Error(`the transaction ended in ${committed.command}, not COMMIT`);
      return result;
    } catch (e) {
      this.counted('transaction');
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      // A statement that found the transaction aborted says nothing of why: the one that aborted it does.
      throw (e instanceof pg.DatabaseError && e.code === IN_FAILED_TRANSACTION ? await sent.cause() : null) ?? e;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  async exec(sql: string): Promise<void> {
    this.counted('other');
    await this.pool.query(sql);
  }

  async tryLease(name: string): Promise<Lease | null> {
    const conn = await this.leaseConnection();
    this.counted('other');
    const r = await this.onLeaseConnection(() => conn.client.query<{ got: boolean }>(LEASE_SQL, [name]));
    if (!r.rows[0]?.got) return null;
    return {
      lost: conn.lost,
      release: async () => {
        this.counted('other');
        await this.onLeaseConnection(() => conn.client.query(UNLEASE_SQL, [name])).catch(() => undefined);
      },
    };
  }

  /** Every projector leases through one connection; a client runs one query at a time. */
  private leaseQueue: Promise<unknown> = Promise.resolve();
  private onLeaseConnection<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.leaseQueue.then(fn, fn);
    this.leaseQueue = run.catch(() => undefined);
    return run;
  }

  private leaseConnection(): Promise<{ client: pg.Client; lost: Promise<void> }> {
    if (this.closed) return Promise.reject(new Error('database closed'));
    if (!this.leaseConn) {
      const attempt = (async () => {
        const client = new pg.Client({ connectionString: this.url, application_name: this.applicationName });
        const lost = new Promise<void>((resolve) => {
          const gone = () => {
            // Advisory locks die with the session; the next tryLease opens a new one.
            if (this.leaseConn === attempt) this.leaseConn = null;
            resolve();
          };
          client.on('error', gone);
          client.on('end', gone);
        });
        await client.connect();
        return { client, lost };
      })();
      attempt.catch(() => {
        if (this.leaseConn === attempt) this.leaseConn = null;
      });
      this.leaseConn = attempt;
    }
    return this.leaseConn;
  }

  async listen(channel: string, listener: (payload: string) => void): Promise<() => Promise<void>> {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      const client = await this.listenConnection();
      this.counted('other');
      await client.query(`SET application_name = ${pg.escapeLiteral(this.listenerName())}; LISTEN ${pg.escapeIdentifier(channel)}`);
    }
    set.add(listener);
    return async () => {
      set.delete(listener);
    };
  }

  private listenConnection(): Promise<pg.Client> {
    if (!this.listenConn) {
      const attempt = (async () => {
        const client = new pg.Client({ connectionString: this.url, application_name: this.listenerName() });
        client.on('notification', (n) => this.listeners.get(n.channel)?.forEach((l) => l(n.payload ?? '')));
        client.on('error', () => this.reconnectListener(attempt));
        await client.connect();
        return client;
      })();
      attempt.catch(() => {
        if (this.listenConn === attempt) this.listenConn = null;
      });
      this.listenConn = attempt;
    }
    return this.listenConn;
  }

  private listenerName(): string {
    return [LISTENER_MARK, this.listenerTag, ...[...this.listeners.keys()].sort()].join(' ');
  }

  async listenedElsewhere(channel: string): Promise<boolean> {
    if (!this.audience || Date.now() - this.audience.at >= this.audienceTtlMs) {
      this.audienceRead ??= this.readAudience().finally(() => (this.audienceRead = null));
      await this.audienceRead;
    }
    return this.audience?.channels?.has(channel) ?? true;
  }

  private async readAudience(): Promise<void> {
    try {
      this.counted('other');
      const own = `${LISTENER_MARK} ${this.listenerTag} `;
      const rows = (await this.pool.query<{ name: string }>(AUDIENCE_SQL, [`${LISTENER_MARK} `, own])).rows;
      // `dss-listen <tag> <channel>…`: the channels follow the mark and the tag.
      this.audience = { at: Date.now(), channels: new Set(rows.flatMap((r) => r.name.split(' ').slice(2))) };
    } catch {
      this.audience = { at: Date.now(), channels: null };
    }
  }

  /** Readers poll as well, so a lost LISTEN costs latency, not events; re-listen in the background. */
  private reconnectListener(dead: Promise<pg.Client>): void {
    if (this.listenConn !== dead || this.closed) return;
    this.listenConn = null;
    const retry = async () => {
      if (this.closed) return;
      try {
        const client = await this.listenConnection();
        for (const channel of this.listeners.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        for (const set of this.listeners.values()) set.forEach((l) => l(''));
      } catch {
        setTimeout(() => void retry(), 1000).unref();
      }
    };
    setTimeout(() => void retry(), 200).unref();
  }

  async ping(): Promise<boolean> {
    try {
      this.counted('other');
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const ends: Promise<unknown>[] = [this.pool.end()];
    if (this.leaseConn) ends.push(this.leaseConn.then((c) => c.client.end()));
    if (this.listenConn) ends.push(this.listenConn.then((c) => c.end()));
    await Promise.allSettled(ends);
  }
}
