import { randomBytes } from 'node:crypto';
import type { MailSink } from './mail-sink.js';

export type Method = 'GET' | 'POST';

/** A failed call while preparing data: the bench stops, since its figures would measure the wrong thing. */
export class CallFailed extends Error {
  constructor(
    readonly status: number,
    what: string,
    body: string,
  ) {
    super(`${what} answered ${status}: ${body.slice(0, 500)}`);
  }
}

/**
 * The service's HTTP interface as a client speaks it, for preparing data (not for measuring: the
 * load goes through autocannon). Answers are the contract's JSON shapes, typed by the caller.
 */
export class ServiceClient {
  constructor(
    readonly url: string,
    private readonly mail: MailSink,
  ) {}

  /** One call, whatever it answers. */
  async send(method: Method, path: string, options: { token?: string; body?: unknown } = {}): Promise<{ status: number; text: string }> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    return { status: res.status, text: await res.text() };
  }

  /** One call that must succeed: its JSON answer. */
  async call<T>(method: Method, path: string, options: { token?: string; body?: unknown } = {}): Promise<T> {
    const { status, text } = await this.send(method, path, options);
    if (status < 200 || status > 299) throw new CallFailed(status, `${method} ${path}`, text);
    return (text ? JSON.parse(text) : {}) as T;
  }

  /** A GraphQL operation; a GraphQL error fails like a refused call. */
  async graphql<T>(token: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const r = await this.call<{ data?: T; errors?: unknown[] }>('POST', '/graphql', { token, body: { query, variables } });
    if (r.errors || r.data === undefined) throw new CallFailed(200, `GraphQL ${query.slice(0, 60)}`, JSON.stringify(r.errors));
    return r.data;
  }

  /** Jobs waiting, running or delayed on the instance's queues (queue_jobs of /metrics): reactions not yet done. */
  async queuedJobs(): Promise<number> {
    return (await this.gauges()).queuedJobs;
  }

  /**
   * From one scrape of /metrics: the queued jobs, the longest the service's event loop was late
   * since the previous scrape (nodejs_eventloop_lag_max_seconds, which each scrape resets), the
   * queries it has sent to PostgreSQL since it started, all pools and kinds (db_queries_total), and
   * how far its furthest-behind read model trails the log (projection_lag_seconds).
   */
  async gauges(): Promise<{ queuedJobs: number; eventLoopDelayMaxMs: number; queries: number; projectionLagSeconds: number }> {
    const { status, text } = await this.send('GET', '/metrics');
    if (status !== 200) throw new CallFailed(status, 'GET /metrics', text);
    let queuedJobs = 0;
    let eventLoopDelayMaxMs = 0;
    let queries = 0;
    let projectionLagSeconds = 0;
    for (const line of text.split('\n')) {
      if (line.startsWith('db_queries_total{')) queries += Number(line.split(' ').pop());
      if (line.startsWith('projection_lag_seconds{')) projectionLagSeconds = Math.max(projectionLagSeconds, Number(line.split(' ').pop()));
      if (line.startsWith('queue_jobs{') && /state="(waiting|active|delayed)"/.test(line)) queuedJobs += Number(line.split(' ').pop());
      if (line.startsWith('nodejs_eventloop_lag_max_seconds ')) eventLoopDelayMaxMs = Number(line.split(' ').pop()) * 1000;
    }
    return { queuedJobs, eventLoopDelayMaxMs, queries, projectionLagSeconds };
  }

  /** Mails a code to a fresh address and answers it, as the person would read it. */
  async mailCode(email = freshEmail()): Promise<{ email: string; code: string }> {
    await this.call('POST', '/auth/send-otp', { body: { email } });
    return { email, code: await this.mail.codeFor(email) };
  }

  /** A registered person, logged in: their user token. */
  async person(email = freshEmail()): Promise<{ email: string; token: string }> {
    const { code } = await this.mailCode(email);
    const { token } = await this.call<{ token: string }>('POST', '/auth/verify-otp', { body: { email, code } });
    await this.graphql(token, 'mutation { user { register(input: {}) { userId } } }');
    return { email, token };
  }
}

/** The queries the instances have sent PostgreSQL so far, all of them together. */
export async function queriesSent(instances: readonly ServiceClient[]): Promise<number> {
  return (await Promise.all(instances.map(async (i) => (await i.gauges()).queries))).reduce((a, b) => a + b, 0);
}

export const freshEmail = (): string => `bench-${randomBytes(6).toString('hex')}@example.com`;

/** Runs `fn` over `items`, `concurrency` at a time, answers in order: setup is many small calls, and the service serves several at once. */
export async function inParallel<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
