import { GraphQLError } from 'graphql';
import type { Refusal } from '../../commands/refusal.js';
import { refusals } from '../refusals.js';

/** A refusal as a GraphQL error with the contract's extensions.code, and a limit's wait in seconds as REST's Retry-After (R-LIM-16). */
export function refusalError(refusal: Refusal): GraphQLError {
  const retry = refusal.retryAfter === undefined ? {} : { retryAfter: Math.max(1, Math.ceil(refusal.retryAfter)) };
  return new GraphQLError(refusal.message, { extensions: { ...refusal.details, ...retry, code: refusals[refusal.code].graphql } });
}

export function graphqlError(code: string, message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { ...extensions, code } });
}

/** Throws the refusal as a GraphQL error, or hands back the value. */
export function orThrow<T>(result: T | Refusal): T {
  if (typeof result === 'object' && result !== null && (result as { kind?: unknown }).kind === 'refusal')
    throw refusalError(result as Refusal);
  return result as T;
}
