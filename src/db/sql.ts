/**
 * The slice of PostgreSQL both backends offer: node-postgres against a server, and PGlite
 * in process. Everything above this file writes plain SQL once and runs on either.
 */
export type Row = Record<string, unknown>;
export type QueryResult<R extends Row = Row> = { rows: R[]; rowCount: number };
/** One statement and its parameters. */
export type Statement = readonly [text: string, values: readonly unknown[]];

export interface SqlExecutor {
  /**
   * In a transaction, statements sent before the answer to the one before run in the order sent:
   * a server gets those sent in one tick in one write, and answers them in one round trip. One the
   * caller never awaits still belongs to the transaction: the commit waits for its answer, and its
   * failure, unless a rollback to a savepoint took it back, fails the transaction (SentStatements).
   */
  query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
}

export interface SqlDb extends SqlExecutor {
  readonly kind: 'postgres' | 'pglite';
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws.
   * `prelude`: a statement without parameters that runs first; a server gets it with BEGIN in one round trip.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Runs several statements separated by semicolons, without parameters (DDL). */
  exec(sql: string): Promise<void>;
  /**
   * Holds a named exclusive lease until release() or until this process dies
   * (a session advisory lock on its own connection), so another instance can take over.
   * Resolves null when another holder has it.
   */
  tryLease(name: string): Promise<Lease | null>;
  /** Calls `listener` with the payload of every NOTIFY on `channel`, from any instance on the database. */
  listen(channel: string, listener: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Whether a connection other than this database's own listener LISTENs on `channel`, as seen
   * lately: a NOTIFY that only this process would hear is not sent (CoalescedNotify). True when unknown.
   */
  listenedElsewhere(channel: string): Promise<boolean>;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export type TransactionOptions = { readonly prelude?: string };

/** SQLSTATE 25P02: a statement sent into a transaction an earlier one had already failed. */
export const IN_FAILED_TRANSACTION = '25P02';

export type Lease = { release(): Promise<void>; readonly lost: Promise<void> };
