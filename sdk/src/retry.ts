import { setTimeout as sleep } from 'node:timers/promises';
import { secondsOf } from './problem.js';

/** How the SDK retries an answer that says "not now". */
export type RetryOptions = {
  /** Attempts after the first; 0 turns retries off. Default 4. */
  readonly retries?: number;
  /** The first wait when the answer gives no Retry-After, doubled each time, with jitter. Default 500 ms. */
  readonly baseDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the problem is thrown. Default 60 s. */
  readonly maxDelayMs?: number;
};

/**
 * A fetch that retries 429 (never processed) and a 503 the service answered before doing anything,
 * honouring Retry-After. A 503 `projection_stalled` is not retried: its command is already in the
 * log (contract §9), so sending it again is the caller's decision. Network errors are retried for
 * reads only, since a write may have arrived.
 */
export function retryingFetch(inner: (request: Request) => Promise<Response>, options: RetryOptions = {}) {
  const retries = options.retries ?? 4;
  const base = options.baseDelayMs ?? 500;
  const max = options.maxDelayMs ?? 60_000;
  return async (request: Request): Promise<Response> => {
    const read = request.method === 'GET' || request.method === 'HEAD';
    for (let attempt = 0; ; attempt++) {
      const backoff = base * 2 ** attempt * (0.5 + Math.random() / 2);
      let response: Response;
      try {
        response = await inner(request.clone());
      } catch (error) {
        if (!read || attempt >= retries) throw error;
        await sleep(backoff, undefined, { signal: request.signal });
        continue;
      }
      if (attempt >= retries || !(await worthRetrying(response))) return response;
      const seconds = secondsOf(response.headers.get('retry-after'));
      const asked = seconds === undefined ? undefined : seconds * 1000;
      if (asked !== undefined && asked > max) return response;
      await response.body?.cancel();
      await sleep(asked ?? backoff, undefined, { signal: request.signal });
    }
  };
}

async function worthRetrying(response: Response): Promise<boolean> {
  if (response.status === 429) return true;
  if (response.status !== 503) return false;
  const problem = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null;
  return problem?.code !== 'projection_stalled';
}
