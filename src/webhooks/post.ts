import { lookup } from 'node:dns/promises';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './addresses.js';
import { hostOf, webhookUrlProblem, type AddressPolicy } from './webhook-url.js';

/** A name's addresses, as the system resolver answers them (tests map a name to loopback). */
export type Resolve = (host: string) => Promise<ReadonlyArray<{ readonly address: string; readonly family: number }>>;

export const systemResolve: Resolve = (host) => lookup(host, { all: true, verbatim: true });

export type PostLimits = {
  /** Name resolution and the TCP (and TLS) connection together. */
  readonly connectTimeoutMs: number;
  /** The whole exchange, until the answer's status. */
  readonly totalTimeoutMs: number;
  /** The most of an answer's body read before the connection is closed. */
  readonly maxResponseBytes: number;
};

/** R-HOOK-08: 10 s in all, 5 of them to connect; 4 KiB of an answer. */
export const POST_LIMITS: PostLimits = { connectTimeoutMs: 5_000, totalTimeoutMs: 10_000, maxResponseBytes: 4096 };

/** One attempt's outcome, as the delivery log shows it. */
export type PostOutcome = {
  readonly succeeded: boolean;
  /** The answer's status; null when none came (refused, unreachable, timed out). */
  readonly responseStatus: number | null;
  readonly durationMs: number;
  /** Why it failed, in words safe to show the organization; null when it succeeded. */
  readonly error: string | null;
};

/**
 * POSTs `body` to a webhook's URL with SSRF defences (R-HOOK-08, docs/security.md): the URL's rules
 * again, the host resolved once and every address it has judged (all must be public unless
 * allowed), then a connection to that very address (the TLS name and Host stay the URL's), no
 * redirect followed (a 3xx fails), bounded time, and at most a few KiB of the answer read. Only a
 * 2xx succeeds.
 */
export async function postWebhook(
  url: URL,
  headers: Readonly<Record<string, string>>,
  body: string,
  options: AddressPolicy & { readonly resolve: Resolve; readonly limits: PostLimits },
): Promise<PostOutcome> {
  const started = performance.now();
  const failed = (error: string, responseStatus: number | null = null): PostOutcome => ({
    succeeded: false,
    responseStatus,
    durationMs: Math.round(performance.now() - started),
    error,
  });
  const problem = webhookUrlProblem(url, options);
  if (problem) return failed(`refused: ${problem}`);
  const target = await resolved(url, options);
  if (typeof target === 'string') return failed(target);
  try {
    const status = await exchange(url, target, headers, body, options.limits, started);
    if (status >= 200 && status < 300)
      return { succeeded: true, responseStatus: status, durationMs: Math.round(performance.now() - started), error: null };
    return failed(status >= 300 && status < 400 ? `redirect not followed (HTTP ${status})` : `HTTP ${status}`, status);
  } catch (e) {
    return failed(reasonOf(e));
  }
}

type Address = { readonly address: string; readonly family: number };

/** The one address the attempt connects to, or why there is none. */
async function resolved(
  url: URL,
  options: AddressPolicy & { readonly resolve: Resolve; readonly limits: PostLimits },
): Promise<Address | string> {
  const host = hostOf(url);
  const family = isIP(host);
  let addresses: readonly Address[];
  if (family !== 0) addresses = [{ address: host, family }];
  else {
    try {
      addresses = await withTimeout(options.resolve(host), options.limits.connectTimeoutMs);
    } catch (e) {
      return `the host could not be resolved (${reasonOf(e)})`;
    }
  }
  // Every address, not just the one used: a name that also points inside is refused as a whole.
  if (!options.allowPrivate && addresses.some((a) => !isPublicAddress(a.address)))
    return 'refused: the host has an address that is not public (private, loopback, link-local or reserved)';
  return addresses[0] ?? 'the host has no address';
}

/** The POST itself, to `target`, answering the status; the answer's body read up to the bound, then the connection closed. */
function exchange(url: URL, target: Address, headers: Readonly<Record<string, string>>, body: string, limits: PostLimits, started: number) {
  return new Promise<number>((resolve, reject) => {
    const pinned: LookupFunction = (_host, opts, callback) => {
      if (opts.all) callback(null, [target]);
      else callback(null, target.address, target.family);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req: ClientRequest = send({
      protocol: url.protocol,
      host: hostOf(url),
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      // A fresh connection each time: a pooled one could have been opened to another address.
      agent: false,
      lookup: pinned,
      signal: AbortSignal.timeout(Math.max(1, Math.ceil(limits.totalTimeoutMs - (performance.now() - started)))),
    });
    req.once('socket', (socket) => {
      const timer = setTimeout(() => req.destroy(new Error('connect timeout')), limits.connectTimeoutMs);
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    req.once('response', (res: IncomingMessage) => {
      resolve(res.statusCode ?? 0);
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= limits.maxResponseBytes) req.destroy();
      });
      res.once('end', () => req.destroy());
      res.once('error', () => undefined);
    });
    req.once('error', reject);
    req.end(body);
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A failure's reason without anything the network said: a code (ECONNREFUSED), a timeout, or the error's name. */
function reasonOf(e: unknown): string {
  if (e instanceof Error && (e.name === 'AbortError' || e.name === 'TimeoutError' || e.message === 'timeout')) return 'timeout';
  if (e instanceof Error && e.message === 'connect timeout') return 'connect timeout';
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' ? code : e instanceof Error ? e.name : 'failed';
}
