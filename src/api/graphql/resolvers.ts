import { GraphQLScalarType, type GraphQLFieldResolver, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import type { DocumentInput, DocumentUpdateInput, DocumentVersionView, DocumentView } from '../../documents/document-service.js';
import type { EntityRole } from '../../events/entity-events.js';
import { parseGrant } from '../../requests/grant-check.js';
import type { GraphqlContext } from './context.js';
import { graphqlError, orThrow, refusalError } from './errors.js';
import { argumentsProblem } from './input-rules.js';
import { refuse, type Refusal } from '../../commands/refusal.js';
import { parseId, type RequestId } from '../../ids.js';

/** A GrantInput as GraphQL checked its shape against the SDL. */
type RawGrant = { readonly slotId: string; readonly resourceIds: readonly string[] };

/** A request id argument, parsed once here: one that is no UUID names nothing (R-HTTP-11). */
function onRequest<T>(args: Record<string, unknown>, use: (requestId: RequestId) => Promise<T | Refusal>): Promise<T | Refusal> {
  const requestId = parseId<'request'>(String(args.requestId));
  return requestId ? use(requestId) : Promise.resolve(refuse('not_found', 'no such request'));
}

type Resolver = GraphQLFieldResolver<unknown, GraphqlContext, Record<string, unknown>>;

/** The requests (each its own context) that asked user.export already: one link per request, however aliased (R-EXP-05). */
const exporting = new WeakSet<GraphqlContext>();

/** Namespaces (user, security) resolve to an empty object; their fields do the work. */
const namespace: Resolver = () => ({});

export const resolvers: Record<string, Resolver> = {
  'Query.user': namespace,
  'Mutation.user': namespace,
  'UserMutation.security': async (_p, _a, ctx) => {
    await ctx.requireRegistered();
    return {};
  },

  'UserMutation.register': async (_p, args, ctx) => {
    const input = args.input as { displayName?: string | null };
    return orThrow(await ctx.identities.register(ctx.caller, input.displayName ?? null, ctx.eventContext()));
  },
  'SecurityMutation.revokeSession': async (_p, args, ctx) =>
    orThrow(await ctx.identities.revokeSession(ctx.caller, String(args.sessionId), ctx.eventContext())),
  'SecurityMutation.revokeAllSessions': async (_p, _a, ctx) =>
    orThrow(await ctx.identities.revokeAllSessions(ctx.caller, false, ctx.eventContext())),
  'SecurityMutation.revokeAllSessionsIncludingCurrent': async (_p, _a, ctx) =>
    orThrow(await ctx.identities.revokeAllSessions(ctx.caller, true, ctx.eventContext())),
  'SecurityMutation.requestErasure': async (_p, _a, ctx) => orThrow(await ctx.erasure.requestCode(ctx.caller, ctx.client)) ?? true,
  'SecurityMutation.eraseAccount': async (_p, args, ctx) =>
    orThrow(await ctx.standing.erase(() => ctx.erasure.erase(ctx.caller, String(args.code), ctx.client, ctx.eventContext()))),

  'UserQuery.me': (_p, _a, ctx) => ctx.identities.account(ctx.caller),
  'Me.sessions': (_p, _a, ctx) => ctx.identities.liveSessions(ctx.caller),

  'UserMutation.document': async (_p, _a, ctx) => {
    await ctx.requireRegistered();
    return {};
  },
  'DocumentMutation.create': async (_p, args, ctx) =>
    orThrow(await ctx.documents.create(ctx.caller, args.input as DocumentInput, ctx.eventContext())),
  'DocumentMutation.validate': async (_p, args, ctx) => orThrow(await ctx.documents.validate(ctx.caller, args.input as DocumentInput)),
  'DocumentMutation.update': async (_p, args, ctx) =>
    orThrow(await ctx.documents.update(ctx.caller, String(args.id), args.input as DocumentUpdateInput, ctx.eventContext())),
  'DocumentMutation.delete': async (_p, args, ctx) => orThrow(await ctx.documents.delete(ctx.caller, String(args.id), ctx.eventContext())),
  'UserQuery.documents': async (_p, _a, ctx) => {
    await ctx.requireRegistered();
    return ctx.documents.list(ctx.caller);
  },
  'UserQuery.document': async (_p, args, ctx) => {
    await ctx.requireRegistered();
    return ctx.documents.get(ctx.caller, String(args.id));
  },
  // A Document reached here was read by list or get, which checked the caller may read it.
  'Document.versions': (parent, _a, ctx) => ctx.documents.versions(parent as DocumentView),
  'Document.versionOf': async (parent, args, ctx) =>
    (await ctx.documents.versions(parent as DocumentView)).find((v) => v.version === args.version) ?? null,
  'DocumentVersion.data': (parent, _a, ctx) => ctx.documents.dataOf(parent as DocumentVersionView),
  'UserQuery.files': async (_p, _a, ctx) => {
    await ctx.requireRegistered();
    return ctx.files.list(ctx.caller);
  },

  'UserMutation.entity': async (_p, _a, ctx) => {
    await ctx.requireRegistered();
    return {};
  },
  'EntityMutation.create': async (_p, args, ctx) => orThrow(await ctx.entities.create(ctx.caller, String(args.name), ctx.eventContext())),
  'EntityMutation.setMember': async (_p, args, ctx) =>
    orThrow(
      await ctx.entities.setMember(ctx.caller, String(args.entityId), String(args.email), args.role as EntityRole, ctx.eventContext()),
    ),
  'EntityMutation.removeMember': async (_p, args, ctx) =>
    orThrow(await ctx.entities.removeMember(ctx.caller, String(args.entityId), String(args.email), ctx.eventContext())),
  'UserQuery.entities': async (_p, _a, ctx) => {
    await ctx.requireRegistered();
    return ctx.entities.list(ctx.caller);
  },

  'UserMutation.request': async (_p, _a, ctx) => {
    await ctx.requireRegistered();
    return {};
  },
  'RequestMutation.open': async (_p, args, ctx) => {
    const manifestId = parseId<'manifest'>(String(args.manifestId));
    const clientId = parseId<'app'>(String(args.clientId));
    if (!manifestId) return orThrow(refuse('not_found', 'no such manifest'));
    if (!clientId) return orThrow(refuse('not_found', "no such app of the manifest's organization"));
    return orThrow(await ctx.requests.open(ctx.caller, clientId, manifestId, ctx.eventContext()));
  },
  // GraphQL has checked GrantInput's shape against the SDL.
  'RequestMutation.accept': async (_p, args, ctx) =>
    orThrow(
      await onRequest(args, (id) => ctx.requests.accept(ctx.caller, id, (args.grants as RawGrant[]).map(parseGrant), ctx.eventContext())),
    ),
  'RequestMutation.grant': async (_p, args, ctx) =>
    orThrow(await onRequest(args, (id) => ctx.requests.grant(ctx.caller, id, parseGrant(args.grant as RawGrant), ctx.eventContext()))),
  'RequestMutation.withdraw': async (_p, args, ctx) =>
    orThrow(
      await onRequest(args, (id) => {
        const slotId = parseId<'slot'>(String(args.slotId));
        if (!slotId)
          return Promise.resolve(refuse('not_found', `no slot ${String(args.slotId)} in the manifest version this request pins`));
        return ctx.requests.withdraw(ctx.caller, id, slotId, ctx.eventContext());
      }),
    ),
  'RequestMutation.reject': async (_p, args, ctx) =>
    orThrow(await onRequest(args, (id) => ctx.requests.change(ctx.caller, id, 'reject', ctx.eventContext()))),
  'RequestMutation.revoke': async (_p, args, ctx) =>
    orThrow(await onRequest(args, (id) => ctx.requests.change(ctx.caller, id, 'revoke', ctx.eventContext()))),
  'RequestMutation.suspend': async (_p, args, ctx) =>
    orThrow(await onRequest(args, (id) => ctx.requests.change(ctx.caller, id, 'suspend', ctx.eventContext()))),
  'RequestMutation.resume': async (_p, args, ctx) =>
    orThrow(await onRequest(args, (id) => ctx.requests.change(ctx.caller, id, 'resume', ctx.eventContext()))),
  'UserQuery.requests': async (_p, _a, ctx) => {
    await ctx.requireRegistered();
    return ctx.requests.mine(ctx.caller);
  },
  'UserQuery.receipts': async (_p, _a, ctx) => {
    await ctx.requireRegistered();
    return ctx.requests.receipts(ctx.caller);
  },
  'UserQuery.consentReceipts': async (_p, args, ctx) => {
    await ctx.requireRegistered();
    return orThrow(await onRequest(args, (id) => ctx.requests.consentReceipts(ctx.caller, id)));
  },
  'UserQuery.requestHistory': async (_p, args, ctx) => {
    await ctx.requireRegistered();
    return orThrow(await onRequest(args, (id) => ctx.requests.history(ctx.caller, id)));
  },
  'UserQuery.export': async (_p, _a, ctx) => {
    // R-EXP-05: checked before any await, so of the fields asking in one request the first in the document is the one answered.
    if (exporting.has(ctx)) throw refusalError(refuse('invalid_request', 'user.export may appear once per request'));
    exporting.add(ctx);
    await ctx.requireRegistered();
    return ctx.exports.issue(ctx.caller);
  },
};

/**
 * Sets each "Type.field" resolver on the schema built from the SDL, refusing a name that is not
 * there. Every resolver runs only on arguments that keep the input rules (R-LIM-02, R-LIM-04), and
 * only while the caller stands (R-ERAS-09).
 */
export function attachResolvers(schema: GraphQLSchema, map: Record<string, Resolver>): GraphQLSchema {
  for (const [path, resolve] of Object.entries(map)) {
    const [typeName, fieldName] = path.split('.') as [string, string];
    const type = schema.getType(typeName);
    const field = type && 'getFields' in type ? type.getFields()[fieldName] : undefined;
    if (!field || !('resolve' in field)) throw new Error(`no field ${path} in the GraphQL schema`);
    field.resolve = (parent: unknown, args: Record<string, unknown>, ctx: GraphqlContext, info: GraphQLResolveInfo) => {
      const problem = argumentsProblem(path, field.args, args);
      if (problem) throw graphqlError('BAD_USER_INPUT', problem);
      return ctx.standing.field(() => resolve(parent, args, ctx, info));
    };
  }
  const json = schema.getType('JSON');
  if (json instanceof GraphQLScalarType) {
    // Any JSON value passes through unchanged: documents and embedded schemas are data.
    json.parseValue = (v) => v;
    json.serialize = (v) => v;
  }
  return schema;
}
