import * as oauth from 'oauth4webapi';
import type { Json } from './client.js';
import type { paths } from './openapi.js';
import { problemOf } from './problem.js';

export type PartnerConnection = Json<NonNullable<paths['/partner/v1/connection']['get']>['responses'][200]>;
export type PartnerRecord = Json<NonNullable<paths['/partner/v1/records/{resourceId}']['get']>['responses'][200]>;

export type PartnerAppOptions = {
  /** The service's origin: its OAuth issuer. */
  readonly baseUrl: string;
  /** The app's clientId from POST /org/v1/apps. */
  readonly clientId: string;
  /** The private half of a key the app registered in its jwks (private_key_jwt), and that key's kid. */
  readonly signingKey: CryptoKey;
  readonly kid: string;
  /** The key pair every DPoP proof is signed with: the tokens are bound to it, so keep it with them. */
  readonly dpopKeys: CryptoKeyPair;
  /** One of the app's registered redirect URIs. */
  readonly redirectUri: string;
};

/** What the token endpoint gave: a DPoP-bound access token (5 minutes), a refresh token, and the request the grant names. */
export type PartnerTokens = {
  readonly accessToken: string;
  readonly refreshToken: string | undefined;
  readonly expiresAt: Date;
  readonly requestId: string | null;
};

/**
 * An organization's app on the service's authorization server (contract §13, docs/oauth.md), on
 * oauth4webapi: pushed authorization requests with PKCE S256, private_key_jwt, DPoP-bound tokens,
 * the `data_request` details, refresh, and the partner plane's reads. OAuth refusals are thrown as
 * oauth4webapi's errors (`error` is the RFC's code); a partner-plane refusal as a DssProblem.
 */
export class PartnerApp {
  private readonly client: oauth.Client;
  private readonly auth: oauth.ClientAuth;
  /** One DPoP handle for every call: it keeps the server's nonce between them. */
  private readonly requestOptions: oauth.DPoPRequestOptions & { [oauth.allowInsecureRequests]: boolean };

  private constructor(
    private readonly as: oauth.AuthorizationServer,
    private readonly options: PartnerAppOptions,
  ) {
    this.client = { client_id: options.clientId };
    this.auth = oauth.PrivateKeyJwt({ key: options.signingKey, kid: options.kid });
    this.requestOptions = {
      DPoP: oauth.DPoP(this.client, options.dpopKeys),
      [oauth.allowInsecureRequests]: options.baseUrl.startsWith('http:'),
    };
  }

  /** Reads the server's metadata (RFC 8414); plain http only for an http baseUrl (development). */
  static async discover(options: PartnerAppOptions): Promise<PartnerApp> {
    const issuer = new URL(options.baseUrl);
    const insecure = { [oauth.allowInsecureRequests]: issuer.protocol === 'http:' };
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    return new PartnerApp(as, options);
  }

  /** Pushes the request for a manifest of the app's organization: send the person's browser to `url`, keep `verifier` for complete(). */
  async authorize(manifestId: string): Promise<{ readonly url: URL; readonly verifier: string }> {
    const verifier = oauth.generateRandomCodeVerifier();
    const body = new URLSearchParams({
      redirect_uri: this.options.redirectUri,
      response_type: 'code',
      scope: 'partner offline_access',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      authorization_details: JSON.stringify([{ type: 'data_request', manifest_id: manifestId }]),
    });
    const pushed = await this.retryingNonce(async (o) =>
      oauth.processPushedAuthorizationResponse(
        this.as,
        this.client,
        await oauth.pushedAuthorizationRequest(this.as, this.client, this.auth, body, o),
      ),
    );
    const url = new URL(this.as.authorization_endpoint!);
    url.searchParams.set('client_id', this.options.clientId);
    url.searchParams.set('request_uri', pushed.request_uri);
    return { url, verifier };
  }

  /** The browser came back to the redirect URI: its URL and the verifier give the tokens (iss and state checked by oauth4webapi). */
  async complete(callback: URL, verifier: string): Promise<PartnerTokens> {
    const params = oauth.validateAuthResponse(this.as, this.client, callback);
    return tokensOf(
      await this.retryingNonce(async (o) =>
        oauth.processAuthorizationCodeResponse(
          this.as,
          this.client,
          await oauth.authorizationCodeGrantRequest(this.as, this.client, this.auth, params, this.options.redirectUri, verifier, o),
        ),
      ),
    );
  }

  /** New tokens before the access token's 5 minutes are up; invalid_grant once the person ended the connection. */
  async refresh(refreshToken: string): Promise<PartnerTokens> {
    return tokensOf(
      await this.retryingNonce(async (o) =>
        oauth.processRefreshTokenResponse(
          this.as,
          this.client,
          await oauth.refreshTokenGrantRequest(this.as, this.client, this.auth, refreshToken, o),
        ),
      ),
    );
  }

  connection(tokens: PartnerTokens): Promise<PartnerConnection> {
    return this.read<PartnerConnection>(tokens, '/partner/v1/connection');
  }

  /** A record's current version; the person sees the read. */
  record(tokens: PartnerTokens, resourceId: string): Promise<PartnerRecord> {
    return this.read<PartnerRecord>(tokens, `/partner/v1/records/${encodeURIComponent(resourceId)}`);
  }

  private async read<T>(tokens: PartnerTokens, path: string): Promise<T> {
    let response: Response;
    try {
      response = await oauth.protectedResourceRequest(
        tokens.accessToken,
        'GET',
        new URL(`${this.options.baseUrl}${path}`),
        new Headers(),
        null,
        this.requestOptions,
      );
    } catch (error) {
      // A 401 comes with a DPoP challenge, which oauth4webapi throws: the problem in its body is the answer.
      if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw error;
      response = error.response;
    }
    if (!response.ok) throw await problemOf(response);
    return (await response.json()) as T;
  }

  /** RFC 9449 §8: a server may ask for its nonce first; the handle remembers it and the call is made once more. */
  private async retryingNonce<T>(call: (options: PartnerApp['requestOptions']) => Promise<T>): Promise<T> {
    try {
      return await call(this.requestOptions);
    } catch (error) {
      if (oauth.isDPoPNonceError(error)) return call(this.requestOptions);
      throw error;
    }
  }
}

function tokensOf(answer: oauth.TokenEndpointResponse): PartnerTokens {
  const detail = answer.authorization_details?.find((d) => d.type === 'data_request');
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token,
    expiresAt: new Date(Date.now() + (answer.expires_in ?? 0) * 1000),
    requestId: typeof detail?.request_id === 'string' ? detail.request_id : null,
  };
}
