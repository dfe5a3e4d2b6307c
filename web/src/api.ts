/**
 * Calls to the service from the pages (contract §11): same origin, the session in an HttpOnly cookie
 * the browser sends by itself, and on every call the header X-CSRF: 1, which a cross-site form
 * cannot send. No token ever passes through these scripts.
 */
const HEADERS = { 'content-type': 'application/json', 'x-csrf': '1' };

/** A refused call: the problem's status and detail (RFC 9457), or GraphQL's first error. */
export class Refused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function refusalOf(res: Response): Promise<Refused> {
  const body = (await res.json().catch(() => ({}))) as { detail?: string; code?: string };
  return new Refused(res.status, body.code ?? 'error', body.detail ?? `the service answered ${res.status}`);
}

export async function post<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    headers: HEADERS,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw await refusalOf(res);
  return (await res.json()) as T;
}

type GraphqlAnswer<T> = { data?: T; errors?: Array<{ message: string; extensions?: { code?: string } }> };

export async function graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: HEADERS,
    credentials: 'same-origin',
    body: JSON.stringify({ query, variables }),
  });
  if (!res.ok) throw await refusalOf(res);
  const answer = (await res.json()) as GraphqlAnswer<T>;
  const [first] = answer.errors ?? [];
  if (first || !answer.data) throw new Refused(200, first?.extensions?.code ?? 'error', first?.message ?? 'no data');
  return answer.data;
}

/** Whether the development mailbox is served (the embedded default only). */
export async function hasMailbox(): Promise<boolean> {
  try {
    return (await fetch('/dev/mailbox', { method: 'HEAD' })).ok;
  } catch {
    return false;
  }
}
