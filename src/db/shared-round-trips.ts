import pg from 'pg';
import { submit } from './submit.js';

/**
 * A batch's statements share one connection, and run one after the other on its server process:
 * past this many, a batch goes on another connection, so one slow statement holds few others.
 */
const MAX_BATCH = 8;

type Waiting = {
  readonly config: pg.QueryConfig;
  readonly resolve: (r: pg.QueryResult) => void;
  readonly reject: (e: unknown) => void;
};

/**
 * An error after which the connection is gone: not the server's (the socket), or the server's with
 * severity FATAL or PANIC. The severity may be translated (lc_messages), so the classes that end a
 * session count too: 57P (operator intervention, as pg_terminate_backend) and 08 (connection).
 */
function endsSession(e: unknown): boolean {
  if (!(e instanceof pg.DatabaseError)) return true;
  return e.severity === 'FATAL' || e.severity === 'PANIC' || /^(57P|08)/.test(e.code ?? '');
}

/**
 * Statements outside a transaction, asked for in one turn of the event loop by any number of
 * callers, leave in one socket write on one connection and come back in one round trip. A socket
 * write costs the process about as much as the rest of a statement (docs/decisions.md, "Event store"),
 * and concurrent requests ask for their reads in the same turn. Each statement keeps its own Sync:
 * one that fails fails alone, and the others on the connection run as if sent apart.
 */
export class SharedRoundTrips {
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(private readonly pool: pg.Pool) {}

  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    return new Promise<pg.QueryResult<R>>((resolve, reject) => {
      this.waiting.push({ config, resolve: resolve as (r: pg.QueryResult) => void, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // After the loop's I/O callbacks of this turn, so the reads every answered socket led to go together.
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = false;
    const all = this.waiting;
    this.waiting = [];
    for (let i = 0; i < all.length; i += MAX_BATCH) void this.send(all.slice(i, i + MAX_BATCH));
  }

  private async send(batch: readonly Waiting[]): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      for (const w of batch) w.reject(e);
      return;
    }
    // A connection lost mid-batch rejects its statements; without a listener its 'error' event would crash the process.
    let broken = false;
    const onError = () => {
      broken = true;
    };
    client.on('error', onError);
    const stream = client.connection.stream;
    stream.cork();
    const answers = batch.map((w) =>
      submit(client, w.config).then(w.resolve, (e: unknown) => {
        // The server ends a session after a FATAL error (a terminated backend) before the socket
        // closes: released as sound, the connection would take the next batch and lose it too.
        if (endsSession(e)) broken = true;
        w.reject(e);
      }),
    );
    stream.uncork();
    await Promise.all(answers);
    client.off('error', onError);
    client.release(broken);
  }
}
