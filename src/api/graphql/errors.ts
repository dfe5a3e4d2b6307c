import { GraphQLError } from 'graphql';
import type { Refusal } from '../../commands/refusal.js';
import { refusals } from '../refusals.js';

/** A refusal as a GraphQL error with the contract's extensions.code. */
export function refusalError(refusal: Refusal): GraphQLError {
  return new GraphQLError(refusal.message, { extensions: { ...refusal.details, code: refusals[refusal.code].graphql } });
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
