import { hkdfSync } from 'node:crypto';
import Provider, { errors, type Adapter, type AsymmetricSigningAlgorithm, type Configuration } from 'oidc-provider';
import { privateJwkFromSeed } from '../identity/keys/ed25519-jwk.js';
import type { Logger } from '../logger.js';
import type { OAuthClient } from '../organizations/index.js';
import type { OAuthStore } from './oauth-store.js';
import { outboundFetch } from './outbound-fetch.js';

/** The one authorization_details type an app asks with (contract §13): a request of one of its organization's manifests. */
export const DATA_REQUEST = 'data_request';
/** The scope of the partner plane, granted with every data request. */
export const PARTNER_SCOPE = 'partner';
/** Access tokens live at most 5 minutes (FAPI 2.0, contract §13). */
export const ACCESS_TOKEN_SECONDS = 300;

/** The signing algorithms apps may use for client authentication and DPoP proofs (FAPI 2.0: EdDSA, ES256, PS256). */
export const APP_SIGNING_ALGS: AsymmetricSigningAlgorithm[] = ['Ed25519', 'EdDSA', 'ES256', 'PS256'];

export type AuthorizationServerDeps = {
  readonly baseUrl: string;
  /** The root every key of the authorization server derives from (the service vault's data key). */
  readonly rootKey: Buffer;
  readonly store: OAuthStore;
  readonly clients: (clientId: string) => Promise<OAuthClient | null>;
  /** Whether the manifest is the client's organization's (an app never asks for another's: invalid_authorization_details). */
  readonly manifestOf: (organizationId: string, manifestId: string) => Promise<boolean>;
  /** The consent gate (contract §10.1) at a refresh: whether the request the grant opened, of this organization, still stands. */
  readonly standing: (organizationId: string, requestId: string) => Promise<boolean>;
  readonly trustProxy: boolean;
  readonly logger: Logger;
};

export type AuthorizationServer = {
  readonly provider: Provider;
  /** The partner plane's URL: the access tokens' audience. */
  readonly resource: string;
  /** The public keys its access tokens are signed with. */
  readonly jwks: { readonly keys: readonly object[] };
};

/** The request a grant's authorization_details carry once the person approved (set by the interaction). */
export function requestIdOf(rar: readonly { readonly type: string; readonly [field: string]: unknown }[] | undefined): string | null {
  const detail = rar?.find((d) => d.type === DATA_REQUEST);
  return typeof detail?.request_id === 'string' ? detail.request_id : null;
}

/**
 * The service as an OAuth 2.0 authorization server for organizations' apps (contract §13, docs/oauth.md):
 * panva's oidc-provider with its FAPI 2.0 profile (pushed authorization requests required, PKCE
 * S256, DPoP-bound tokens, the `iss` response parameter), private_key_jwt client authentication,
 * the `data_request` authorization details, and JWT access tokens for the partner plane.
 */
export async function authorizationServer(deps: AuthorizationServerDeps): Promise<AuthorizationServer> {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', deps.rootKey, Buffer.alloc(0), info, 32));
  const signing = await privateJwkFromSeed(derive('oauth-signing-v1'));
  const resource = `${deps.baseUrl}/partner/v1`;
  const key = { ...signing, alg: 'Ed25519' };

  const configuration: Configuration = {
    adapter: (model: string) => (model === 'Client' ? clientAdapter(deps) : deps.store.adapter(model)),
    jwks: { keys: [key] },
    // Non-negotiable 7: HttpOnly and SameSite=Strict; only the consent page's own calls and its resume need them.
    cookies: {
      keys: [derive('oauth-cookies-v1').toString('base64url')],
      short: { httpOnly: true, sameSite: 'strict' },
      long: { httpOnly: true, sameSite: 'strict' },
    },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'Ed25519',
      authorization_signed_response_alg: 'Ed25519',
    },
    enabledJWA: {
      clientAuthSigningAlgValues: APP_SIGNING_ALGS,
      dPoPSigningAlgValues: APP_SIGNING_ALGS,
      idTokenSigningAlgValues: ['Ed25519'],
      requestObjectSigningAlgValues: APP_SIGNING_ALGS,
      authorizationSigningAlgValues: ['Ed25519'],
    },
    clientAuthMethods: ['private_key_jwt'],
    features: {
      devInteractions: { enabled: false },
      fapi: { enabled: true, profile: '2.0' },
      pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: true },
      dPoP: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      richAuthorizationRequests: {
        enabled: true,
        types: {
          [DATA_REQUEST]: {
            validate: async (ctx, detail) => {
              const client = await deps.clients(ctx.oidc.client?.clientId ?? '');
              const manifestId = detail.manifest_id;
              const known = typeof manifestId === 'string' && client !== null && (await deps.manifestOf(client.organizationId, manifestId));
              if (!known) throw new errors.InvalidAuthorizationDetails('manifest_id must name a manifest of the app’s organization');
              // The request is named by the service once the person answered (consent-interaction.ts), never by the app.
              if ('request_id' in detail) throw new errors.InvalidAuthorizationDetails('request_id is not the app’s to send');
            },
          },
        },
        authorizationDetailsForGrantSource: (ctx) => ctx.oidc.grant?.rar,
        authorizationDetailsForAccessToken: (_ctx, _token, source) => source?.rar,
        authorizationDetailsForIntrospection: (_ctx, token) => token.rar,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, asked) => {
          if (asked !== resource) throw new errors.InvalidTarget('the partner plane is the one resource');
          return {
            scope: PARTNER_SCOPE,
            audience: resource,
            accessTokenTTL: ACCESS_TOKEN_SECONDS,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'Ed25519' } },
          };
        },
      },
    },
    scopes: [PARTNER_SCOPE, 'offline_access'],
    pkce: { required: () => true },
    ttl: {
      AccessToken: ACCESS_TOKEN_SECONDS,
      AuthorizationCode: 60,
      PushedAuthorizationRequest: 60,
      Interaction: 30 * 60,
      Session: 60 * 60,
      Grant: 400 * 24 * 60 * 60,
      RefreshToken: 30 * 24 * 60 * 60,
    },
    issueRefreshToken: () => true,
    // Contract §13: every token passes the consent gate when it is issued; a refresh of a grant whose request no longer stands ends it.
    extraTokenClaims: async (ctx, token) => {
      const requestId = requestIdOf(token.rar ?? ctx.oidc.grant?.rar);
      const client = requestId === null ? null : await deps.clients(ctx.oidc.client?.clientId ?? '');
      if (requestId === null || (client !== null && (await deps.standing(client.organizationId, requestId)))) return undefined;
      await ctx.oidc.grant?.destroy();
      throw new errors.InvalidGrant('the person ended the connection this grant was given for');
    },
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      pushed_authorization_request: '/oauth/par',
      jwks: '/oauth/jwks',
      revocation: '/oauth/revoke',
      end_session: '/oauth/logout',
      userinfo: '/oauth/userinfo',
      code_verification: '/oauth/device',
      backchannel_authentication: '/oauth/backchannel',
      introspection: '/oauth/introspect',
      registration: '/oauth/register',
      challenge: '/oauth/challenge',
    },
    // An app's jwks_uri is fetched from the service: https to public addresses only, no redirects (as webhooks, R-HOOK-08).
    fetch: outboundFetch({ loopback: false }),
    renderError: (ctx, out) => {
      ctx.type = 'application/json';
      ctx.body = out;
    },
  };
  const provider = new Provider(deps.baseUrl, configuration);
  // X-Forwarded-* only from the proxies TRUST_PROXY names (its cookies' Secure flag reads the protocol).
  provider.proxy = deps.trustProxy;
  provider.on('server_error', (_ctx, err) => deps.logger.error({ err }, 'authorization server error'));
  return { provider, resource, jwks: { keys: [{ kty: key.kty, crv: key.crv, x: key.x, kid: key.kid, alg: key.alg, use: key.use }] } };
}

/** Clients are the organizations' apps with redirect URIs: read, never written, by the authorization server. */
function clientAdapter(deps: AuthorizationServerDeps): Adapter {
  const none = async () => undefined;
  return {
    async find(clientId: string) {
      const app = await deps.clients(clientId);
      if (!app) return undefined;
      return {
        client_id: app.clientId,
        client_name: app.name,
        redirect_uris: [...app.redirectUris],
        ...(app.jwks ? { jwks: { keys: [...app.jwks.keys] } } : { jwks_uri: app.jwksUri }),
        token_endpoint_auth_method: 'private_key_jwt' as const,
        dpop_bound_access_tokens: true,
        authorization_details_types: [DATA_REQUEST],
      };
    },
    upsert: none,
    findByUid: none,
    findByUserCode: none,
    consume: none,
    destroy: none,
    revokeByGrantId: none,
  };
}
