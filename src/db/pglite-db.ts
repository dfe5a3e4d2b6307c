import { PGlite } from '@electric-sql/pglite';
import { SentStatements } from './sent-statements.js';
import type { Lease, QueryResult, Row, SqlDb, SqlExecutor, TransactionOptions } from './sql.js';

/**
 * SqlDb over PGlite: PostgreSQL compiled to WebAssembly, in this process, files in DATA_DIR.
 * Only one process may open a data directory, so leases are an in-process registry.
 */
export class PgliteDb implements SqlDb {
  readonly kind = 'pglite' as const;
  private readonly leases = new Set<string>();

  private constructor(private readonly db: PGlite) {}

  /** `dataDir` undefined keeps everything in memory (tests). */
  static async open(dataDir?: string): Promise<PgliteDb> {
    const db = dataDir ? new PGlite(dataDir) : new PGlite();
    await db.waitReady;
    return new PgliteDb(db);
  }

  async query<R extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    const r = await this.db.query<R>(text, params as unknown[]);
    return { rows: r.rows, rowCount: r.affectedRows || r.rows.length };
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    return this.db.transaction(async (t) => {
      if (options.prelude) await t.exec(options.prelude);
      const sent = new SentStatements();
      const result = await fn({
        query: <R extends Row = Row>(text: string, params: readonly unknown[] = []) =>
          sent.track(t.query<R>(text, params as unknown[]).then((r) => ({ rows: r.rows, rowCount: r.affectedRows || r.rows.length }))),
      });
      const cause = await sent.cause();
      if (cause) throw cause;
      return result;
    });
  }

  async exec(sql: string): Promise<void> {
    await this.db.exec(sql);
  }

  async tryLease(name: string): Promise<Lease | null> {
    if (this.leases.has(name)) return null;
    this.leases.add(name);
    return {
      lost: new Promise<void>(() => undefined),
      release: async () => {
        this.leases.delete(name);
      },
    };
  }

  async listen(channel: string, listener: (payload: string) => void): Promise<() => Promise<void>> {
    return this.db.listen(channel, listener);
  }

  async ping(): Promise<boolean> {
    try {
      await this.db.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}
