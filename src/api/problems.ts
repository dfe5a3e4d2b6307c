import type { Response } from 'express';
import type { RefusalCode, TransportCode } from '../commands/refusal.js';

/** Codes of problems that are not a command's refusal: the service's own failures. */
export type ProblemCode = RefusalCode | TransportCode | 'internal_error' | 'not_ready';

/** The service's own problems (refusals.ts holds every refusal's status and title). */
export const SERVICE_PROBLEMS: { readonly [C in Exclude<ProblemCode, RefusalCode | TransportCode>]: { status: number; title: string } } = {
  internal_error: { status: 500, title: 'Internal server error' },
  not_ready: { status: 503, title: 'Not ready' },
};

/** An RFC 9457 problem; extension members ride beside the five the contract fixes. */
export type Problem = {
  readonly status: number;
  readonly code: ProblemCode;
  readonly title: string;
  readonly detail: string;
  readonly extensions?: Readonly<Record<string, unknown>>;
};

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const TYPE_BASE_KEY = 'problemTypeBase';

/** Problem `type` URIs hang under the service's public base URL, each a page saying what it means (problem-pages.ts). */
export function setProblemTypeBase(locals: Record<string, unknown>, baseUrl: string): void {
  locals[TYPE_BASE_KEY] = `${baseUrl.replace(/\/+$/, '')}/problems/`;
}

/** The `type` URI of a problem code, under the base the app's locals hold. */
export function problemType(appLocals: Readonly<Record<string, unknown>>, code: ProblemCode): string {
  const base = appLocals[TYPE_BASE_KEY];
  return `${typeof base === 'string' ? base : '/problems/'}${code}`;
}

export function sendProblem(res: Response, problem: Problem): void {
  const requestId = res.locals.requestContext?.requestId;
  const body = {
    ...problem.extensions,
    type: problemType(res.app.locals, problem.code),
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    ...(requestId ? { requestId } : {}),
  };
  res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}
