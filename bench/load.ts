import autocannon from 'autocannon';
import type { Method } from './service-client.js';

/** One HTTP request of the load. */
export type Call = { readonly method: Method; readonly path: string; readonly token?: string; readonly body?: unknown };

/**
 * What one autocannon connection sends: `next()` is called once for each request it sends, so a
 * script walks its own records (a new item, the current version) and no two connections clash.
 */
export type Script = {
  next(): Call;
  /** The answer to the request `next()` gave last (a connection waits for it before its next request). */
  answered?(status: number, body: string): void;
};

export type LoadResult = {
  /** Answers received (any status). */
  readonly responses: number;
  readonly ok: number;
  /** Non-2xx answers, GraphQL answers with errors, socket errors and timeouts. */
  readonly errors: number;
  /** Requests written; those beyond the answers were in flight when the run stopped, and the service may still have done them. */
  readonly sent: number;
  readonly seconds: number;
  readonly perSecond: number;
  /** Latency of the 2xx answers (autocannon records only those). */
  readonly p50ms: number;
  readonly p99ms: number;
  /** Connections that used up their `perConnection` requests before the time was up. */
  readonly exhausted: number;
  /** What the errors were: "8× 409 version_conflict, 2 timeouts"; empty without errors. */
  readonly failures: string;
};

/**
 * Runs autocannon for `seconds`, connection i sending what `scripts[i]` says, at most
 * `perConnection` requests each (the records prepared for it). Connections are spread over `urls`
 * round-robin, so two instances share the load in one run with one latency histogram.
 */
export async function runLoad(options: {
  readonly urls: readonly string[];
  readonly scripts: readonly Script[];
  readonly seconds: number;
  readonly perConnection?: number;
  /** Socket errors and timeouts after which the run ends early: a service that died is not hammered with connection attempts. */
  readonly bailout?: number;
}): Promise<LoadResult> {
  let assigned = 0;
  const sentBy = new Array<number>(options.scripts.length).fill(0);
  const started = performance.now();
  let lastAnswer = started;
  const refused = new Map<string, number>();
  let refusedWith200 = 0;
  const result = await autocannon({
    ...withUrls(options.urls),
    connections: options.scripts.length,
    duration: options.seconds,
    // autocannon notices the end (time up, or every connection done) only at a sample tick: 1 s by
    // default, which would stretch a short trial several times over.
    sampleInt: 100,
    ...(options.perConnection ? { maxConnectionRequests: options.perConnection } : {}),
    ...(options.bailout ? { bailout: options.bailout } : {}),
    // A connection's request list is set here, per connection: autocannon resets a request's
    // `context` every time it loops over its list, so per-connection state cannot live there.
    setupClient: (client) => {
      const index = assigned++;
      const script = options.scripts[index]!;
      client.setRequests([
        {
          setupRequest: (request) => {
            sentBy[index]!++;
            return { ...request, ...wire(script.next()) };
          },
          onResponse: (status, body) => {
            lastAnswer = performance.now();
            if (status < 200 || status > 299) tally(refused, `${status} ${problemCode(body)}`.trim());
            else {
              const code = graphqlErrorCode(body);
              if (code !== null) {
                refusedWith200++;
                tally(refused, `${status} GraphQL ${code}`.trim());
              }
            }
            script.answered?.(status, body);
          },
        },
      ]);
    },
  });
  const sent = sentBy.reduce((a, b) => a + b, 0);
  const responses = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  // From the start to the last answer: autocannon's own duration runs to the tick after the end.
  const seconds = (lastAnswer - started) / 1000 || result.duration;
  return {
    responses,
    ok: result['2xx'] - refusedWith200,
    errors: result.non2xx + result.errors + refusedWith200,
    sent,
    seconds,
    perSecond: (result['2xx'] - refusedWith200) / seconds,
    p50ms: result.latency.p50,
    p99ms: result.latency.p99,
    exhausted: options.perConnection ? sentBy.filter((n) => n >= options.perConnection!).length : 0,
    failures: [
      ...[...refused].map(([what, n]) => `${n}× ${what}`),
      ...(result.timeouts ? [`${result.timeouts} timeouts`] : []),
      ...(result.errors - result.timeouts ? [`${result.errors - result.timeouts} socket errors`] : []),
    ].join(', '),
  };
}

function tally(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** The problem+json `code` of a refusal (contract §0), if the body has one. */
export function problemCode(body: string): string {
  try {
    const parsed = JSON.parse(body) as { code?: unknown };
    return typeof parsed.code === 'string' ? parsed.code : '';
  } catch {
    return '';
  }
}

/**
 * The `extensions.code` of a GraphQL answer's first error ('' without one), null for an answer
 * without errors: GraphQL answers its refusals with 200. Only a body that names `errors` is parsed.
 */
export function graphqlErrorCode(body: string): string | null {
  if (!body.includes('"errors"')) return null;
  try {
    const parsed = JSON.parse(body) as { errors?: Array<{ extensions?: { code?: unknown } }> };
    if (!Array.isArray(parsed.errors) || parsed.errors.length === 0) return null;
    const code = parsed.errors[0]?.extensions?.code;
    return typeof code === 'string' ? code : '';
  } catch {
    return null;
  }
}

/**
 * autocannon takes several URLs and spreads the connections over them round-robin (its README:
 * "More than one URL is allowed"); its type declarations only know one.
 */
function withUrls(urls: readonly string[]): Pick<autocannon.Options, 'url'> {
  if (urls.length === 1) return { url: urls[0]! };
  return { url: [...urls] } as unknown as Pick<autocannon.Options, 'url'>;
}

function wire(call: Call): autocannon.Request {
  return {
    method: call.method,
    path: call.path,
    headers: {
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(call.token ? { authorization: `Bearer ${call.token}` } : {}),
    },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  };
}
