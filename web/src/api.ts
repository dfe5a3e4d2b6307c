import type { paths } from '@dss/sdk';

/**
 * Calls to the service from the pages (contract §11): same origin, the session in an HttpOnly cookie
 * the browser sends by itself, and on every call the header X-CSRF: 1, which a cross-site form
 * cannot send. No token ever passes through these scripts. An organization's calls name it in
 * X-Organization, so the service takes that organization's member cookie (R-WEB-08).
 */
const CSRF = { 'x-csrf': '1' };

/** A refused call: the problem's status, code, detail and other members (RFC 9457), or GraphQL's first error and its extensions. */
export class Refused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

/** What a person reads when a call fails: the service's own words, or that it could not be reached. */
export const messageOf = (e: unknown): string => (e instanceof Refused ? e.message : 'The service could not be reached. Try again.');

/** For a load's catch: a 404 told in the page's own words ("This request was not found."). */
export const notFoundAs =
  (words: string) =>
  (e: unknown): never => {
    throw e instanceof Refused && e.status === 404 ? new Refused(404, e.code, words, e.details) : e;
  };

async function refusalOf(res: Response): Promise<Refused> {
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown> & { detail?: string; code?: string };
  return new Refused(res.status, body.code ?? 'error', body.detail ?? `the service answered ${res.status}`, body);
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One REST call; `organizationId` signs it in with that organization's member cookie. */
export async function call<T>(method: Method, path: string, body?: unknown, organizationId?: string): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: {
      ...CSRF,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(organizationId ? { 'x-organization': organizationId } : {}),
    },
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw await refusalOf(res);
  return (await res.json()) as T;
}

export const get = <T>(path: string) => call<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => call<T>('POST', path, body);

/** The organization plane as a member of `organizationId`, through its member cookie (POST /org/v1/token sets it). */
export function orgApi(organizationId: string) {
  return {
    organizationId,
    get: <T>(path: string) => call<T>('GET', path, undefined, organizationId),
    post: <T>(path: string, body?: unknown) => call<T>('POST', path, body, organizationId),
    put: <T>(path: string, body?: unknown) => call<T>('PUT', path, body, organizationId),
    del: <T>(path: string) => call<T>('DELETE', path, undefined, organizationId),
    /** Bytes of a file route, for a download. */
    blob: (path: string) => download(path, organizationId),
  };
}
export type OrgApi = ReturnType<typeof orgApi>;

/** The routes of the service's OpenAPI document (sdk/src/openapi.ts, generated) that take `M`. */
type Route<M extends Lowercase<Method>> = { [P in keyof paths]: paths[P][M] extends { responses: object } ? P : never }[keyof paths];
type Success<R> = R extends { 200: infer A } ? A : R extends { 201: infer A } ? A : R extends { 202: infer A } ? A : never;

/** The JSON that method M of route P answers on success, as the document declares it: `org.api.get<Answer<'get', '/org/v1/apps'>>`. */
export type Answer<M extends Lowercase<Method>, P extends Route<M>> = paths[P][M] extends { responses: infer R }
  ? Success<R> extends { content: { 'application/json': infer B } }
    ? B
    : never
  : never;

type GraphqlError = { message: string; extensions?: Record<string, unknown> & { code?: string } };
type GraphqlAnswer<T> = { data?: T; errors?: GraphqlError[] };

export async function graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: { ...CSRF, 'content-type': 'application/json' },
    credentials: 'same-origin',
    body: JSON.stringify({ query, variables }),
  });
  const answer = (await res.json().catch(() => null)) as GraphqlAnswer<T> | null;
  const [first] = answer?.errors ?? [];
  if (first) {
    const code = String(first.extensions?.code ?? 'error');
    throw new Refused(code === 'UNAUTHENTICATED' ? 401 : res.status, code, first.message, first.extensions ?? {});
  }
  if (!res.ok || !answer?.data) throw new Refused(res.status, 'error', `the service answered ${res.status}`);
  return answer.data;
}

/** Bytes received so far, and how many are coming when the service said (a streamed archive does not). */
export type OnBytes = (received: number, total: number | null) => void;

/** A file's bytes and name, fetched with the cookie (and the organization's, when named); `onBytes` hears them arrive. */
export async function download(path: string, organizationId?: string, onBytes?: OnBytes): Promise<{ blob: Blob; name: string }> {
  const res = await fetch(path, { credentials: 'same-origin', headers: organizationId ? { 'x-organization': organizationId } : {} });
  if (!res.ok) throw await refusalOf(res);
  const disposition = res.headers.get('content-disposition') ?? '';
  const name = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1] ?? /filename="([^"]+)"/i.exec(disposition)?.[1] ?? 'download';
  return { blob: await bodyOf(res, onBytes), name: decodeURIComponent(name) };
}

/** The body as a blob, read chunk by chunk when someone counts the bytes (fetch reports no progress itself). */
async function bodyOf(res: Response, onBytes?: OnBytes): Promise<Blob> {
  if (!onBytes || !res.body) return res.blob();
  const total = Number(res.headers.get('content-length')) || null;
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let received = 0;
  const reader = res.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    chunks.push(read.value);
    received += read.value.byteLength;
    onBytes(received, total);
  }
  return new Blob(chunks, { type: res.headers.get('content-type') ?? '' });
}

/** Hands a downloaded blob to the browser as a file to save. */
export function saveBlob({ blob, name }: { blob: Blob; name: string }): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Sends bytes with upload progress (fetch reports none): XMLHttpRequest, same origin, the cookie and
 * X-CSRF like every call. `onProgress` gets the fraction sent, 0 to 1.
 */
export function upload<T>(
  path: string,
  body: Blob,
  headers: Readonly<Record<string, string>>,
  onProgress: (fraction: number) => void,
  organizationId?: string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries({ ...headers, ...CSRF, ...(organizationId ? { 'x-organization': organizationId } : {}) }))
      xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let parsed: Record<string, unknown> & { code?: string; detail?: string } = {};
      try {
        parsed = JSON.parse(xhr.responseText) as typeof parsed;
      } catch {
        // An answer that is not JSON is reported by its status alone.
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(parsed as T);
      } else
        reject(
          new Refused(xhr.status, String(parsed.code ?? 'error'), String(parsed.detail ?? `the service answered ${xhr.status}`), parsed),
        );
    };
    xhr.onerror = () => reject(new Refused(0, 'network', 'The upload was cut off. Try again.'));
    xhr.send(body);
  });
}

/** Whether the development mailbox is served (the embedded default only). */
export async function hasMailbox(): Promise<boolean> {
  try {
    return (await fetch('/dev/mailbox', { method: 'HEAD' })).ok;
  } catch {
    return false;
  }
}
