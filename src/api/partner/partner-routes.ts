import { Router, type Request as ExpressRequest, type Response } from 'express';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { isRefusal, refuse, type AnyRefusal, type Refusal } from '../../commands/refusal.js';
import { parseId } from '../../ids.js';
import type { OAuthClient } from '../../organizations/index.js';
import type { AuthorizationServer } from '../../partner/authorization-server.js';
import { ACCESS_TOKEN_SECONDS, APP_SIGNING_ALGS, requestIdOf } from '../../partner/authorization-server.js';
import type { OAuthStore } from '../../partner/oauth-store.js';
import type { PartnerGrant, PartnerPlane } from '../../partner/partner-plane.js';
import { answer, ok } from '../answer.js';
import { knownInput } from '../middleware/known-input.js';
import { sendRefusal } from '../refusals.js';
import { eventContext } from '../request-context.js';

export type PartnerRouteDeps = {
  readonly partner: PartnerPlane;
  readonly server: AuthorizationServer;
  readonly store: OAuthStore;
  readonly clients: (clientId: string) => Promise<OAuthClient | null>;
  readonly baseUrl: string;
  readonly now: () => Date;
};

/**
 * The partner plane, /partner/v1 (contract §13): an app's DPoP-bound access token, checked by
 * oauth4webapi as a resource server (signature, audience, expiry, the DPoP proof's key, method, URL
 * and token hash), each proof once; then the grant's request under the consent gate.
 */
export function partnerRoutes(deps: PartnerRouteDeps): Router {
  const router = Router();
  const as: oauth.AuthorizationServer = { issuer: deps.baseUrl, jwks_uri: `${deps.baseUrl}/oauth/jwks` };
  const options: oauth.ValidateJWTAccessTokenOptions = {
    requireDPoP: true,
    signingAlgorithms: ['Ed25519'],
    // The keys are the service's own: read from memory, never over the network.
    [oauth.customFetch]: async () => Response.json(deps.server.jwks),
    [oauth.allowInsecureRequests]: deps.baseUrl.startsWith('http:'),
  };

  const grantOf = async (req: ExpressRequest): Promise<PartnerGrant | Refusal> => {
    const request = new Request(`${deps.baseUrl}${req.originalUrl}`, { method: req.method, headers: headersOf(req) });
    let claims: oauth.JWTAccessTokenClaims;
    try {
      claims = await oauth.validateJwtAccessToken(as, request, deps.server.resource, options);
    } catch (error) {
      return refuse(
        'unauthenticated',
        `the access token or its DPoP proof is not valid: ${error instanceof Error ? error.message : 'refused'}`,
      );
    }
    // RFC 9449 §11.1: a proof is accepted once, for as long as it could be (its iat window).
    const jti = decodeJwt(req.get('dpop') ?? '').jti;
    if (typeof jti !== 'string' || !(await deps.store.firstUseOfProof(jti, ACCESS_TOKEN_SECONDS)))
      return refuse('unauthenticated', 'this DPoP proof was used already: make a new one for each request');
    const requestId = parseId<'request'>(requestIdOf(claims.authorization_details) ?? '');
    const client = await deps.clients(String(claims.client_id));
    if (!requestId || !client) return refuse('unauthenticated', 'the grant names no request of this app');
    return { organizationId: client.organizationId, clientId: client.clientId, requestId };
  };
  const refuser = (_req: ExpressRequest, res: Response, refusal: AnyRefusal) => {
    if (refusal.code === 'unauthenticated')
      res.set(
        'WWW-Authenticate',
        `DPoP error="invalid_token", error_description="${refusal.message.replace(/"/g, "'")}", algs="${APP_SIGNING_ALGS.join(' ')}"`,
      );
    sendRefusal(res, refusal);
  };
  const actor = (grant: PartnerGrant) => ({ kind: 'system' as const, id: `app:${grant.clientId}` });

  router.get(
    '/partner/v1/connection',
    knownInput(),
    answer(async (req) => {
      const grant = await grantOf(req);
      if (isRefusal(grant)) return grant;
      const connection = await deps.partner.connection(grant);
      return isRefusal(connection) ? connection : ok(connection);
    }, refuser),
  );
  router.get(
    '/partner/v1/records/:resourceId',
    knownInput(),
    answer(async (req) => {
      const grant = await grantOf(req);
      if (isRefusal(grant)) return grant;
      const resourceId = parseId<'resource'>(String(req.params.resourceId));
      if (!resourceId) return refuse('not_found', 'no such record on this connection');
      const record = await deps.partner.record(grant, resourceId, eventContext(req, actor(grant), deps.now()));
      return isRefusal(record) ? record : ok(record);
    }, refuser),
  );
  return router;
}

function headersOf(req: ExpressRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return headers;
}
