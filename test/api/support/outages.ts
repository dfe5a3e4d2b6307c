import net from 'node:net';
import type { Lease, QueryResult, Row, SqlDb, SqlExecutor, TransactionOptions } from '../../../src/db/sql.js';

/** A database that can be "unplugged": while down, every statement fails as a refused connection would. */
export class OutageDb implements SqlDb {
  readonly kind: SqlDb['kind'];
  down = false;
  /** While set, every statement sent outside a transaction, with its parameters: what a command read. */
  sent: string[] | null = null;

  constructor(private readonly inner: SqlDb) {
    this.kind = inner.kind;
  }

  private refuseWhileDown(): void {
    if (this.down) throw Object.assign(new Error('connect ECONNREFUSED 10.9.8.7:5432'), { code: 'ECONNREFUSED' });
  }

  async query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    this.refuseWhileDown();
    this.sent?.push(`${text} ${JSON.stringify(params)}`);
    return this.inner.query<R>(text, params);
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, options?: TransactionOptions): Promise<T> {
    this.refuseWhileDown();
    return this.inner.transaction(fn, options);
  }

  async exec(sql: string): Promise<void> {
    this.refuseWhileDown();
    return this.inner.exec(sql);
  }

  async tryLease(name: string): Promise<Lease | null> {
    this.refuseWhileDown();
    return this.inner.tryLease(name);
  }

  listen(channel: string, listener: (payload: string) => void): Promise<() => Promise<void>> {
    return this.inner.listen(channel, listener);
  }

  listenedElsewhere(channel: string): Promise<boolean> {
    return this.inner.listenedElsewhere(channel);
  }

  async ping(): Promise<boolean> {
    return !this.down && this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * A TCP forwarder in front of a real server: stop() closes the port and cuts every connection
 * (the server is unreachable), start() opens the same port again (it is back).
 */
export class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  start(): Promise<number> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as net.AddressInfo).port;
        resolve(this.port);
      });
    });
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
