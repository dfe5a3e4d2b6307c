import type { components } from './openapi.js';

/** An RFC 9457 problem as the service answers it (components.schemas.Problem). */
export type Problem = components['schemas']['Problem'];
/** Every code a problem can carry: a switch over it is exhaustive. */
export type ProblemCode = Problem['code'];

/** A refusal of the service, thrown by every call of the SDK: switch on `code`, never on the message. */
export class DssProblem extends Error {
  override readonly name = 'DssProblem';
  readonly status: number;
  readonly code: ProblemCode;
  readonly detail: string;
  /** Seconds the Retry-After header asked for, when it did. */
  readonly retryAfter: number | undefined;

  constructor(
    readonly problem: Problem,
    retryAfter?: number,
  ) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.status = problem.status;
    this.code = problem.code;
    this.detail = problem.detail;
    this.retryAfter = retryAfter;
  }

  /** Narrows to one code: `if (e instanceof DssProblem && e.is('version_conflict'))`. */
  is<C extends ProblemCode>(code: C): this is DssProblem & { readonly code: C } {
    return this.code === code;
  }
}

/** The problem an answer carries; an answer that is not problem+json (a proxy's page) becomes internal_error with its status. */
export async function problemOf(response: Response, body?: unknown): Promise<DssProblem> {
  const parsed = body ?? (await response.text().then(parseJson));
  const retryAfter = secondsOf(response.headers.get('retry-after'));
  if (isProblem(parsed)) return new DssProblem(parsed, retryAfter);
  return new DssProblem(
    {
      type: 'about:blank',
      title: response.statusText || 'Unexpected answer',
      status: response.status,
      detail: `The service answered ${response.status} without a problem body`,
      code: response.status === 503 ? 'service_unavailable' : 'internal_error',
    },
    retryAfter,
  );
}

/** Retry-After as seconds: a number of seconds or an HTTP date (RFC 9110 §10.2.3). */
export function secondsOf(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isProblem(value: unknown): value is Problem {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { code?: unknown }).code === 'string' &&
    typeof (value as { status?: unknown }).status === 'number'
  );
}
