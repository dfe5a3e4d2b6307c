import { exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import * as oauth from 'oauth4webapi';

/** Where the app is sent back to: a loopback URL (OAUTH_ALLOW_LOOPBACK_HTTP=1 in the tests). */
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** A browser's cookies for one origin: what carries the authorization's interaction from redirect to redirect. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * An organization's app, as a real one would be written with oauth4webapi: its own Ed25519 key
 * (private_key_jwt), a DPoP key, PAR with PKCE and the data_request details; every call over HTTP.
 */
export async function testApp(baseUrl: string) {
  const signing = await generateKeyPair('Ed25519', { extractable: true });
  const dpopKeys = await generateKeyPair('Ed25519', { extractable: true });
  const kid = `app-${Math.random().toString(36).slice(2)}`;
  const publicJwk = { ...(await exportJWK(signing.publicKey)), kid, alg: 'Ed25519', use: 'sig' };
  const insecure = { [oauth.allowInsecureRequests]: true };
  const issuer = new URL(baseUrl);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));

  return {
    as,
    jwks: { keys: [publicJwk] },
    /** The app's private signing key and its kid, as the SDK's PartnerApp takes them. */
    signingKey: signing.privateKey,
    kid,
    /** The app's private_key_jwt client authentication. */
    clientAuth: () => oauth.PrivateKeyJwt({ key: signing.privateKey, kid }),
    /** The app's view once registered: its client id, auth and DPoP handle. */
    client(clientId: string, options: { dpopKey?: { privateKey: CryptoKey; publicKey: CryptoKey } } = {}) {
      const client: oauth.Client = { client_id: clientId };
      const auth = oauth.PrivateKeyJwt({ key: signing.privateKey, kid });
      const dpop = oauth.DPoP(client, options.dpopKey ?? dpopKeys);
      const opts = { DPoP: dpop, ...insecure };
      /** Retries once on the DPoP nonce challenge, as RFC 9449 §8 has a client do. */
      const withNonce = async <T>(call: () => Promise<T>): Promise<T> => {
        try {
          return await call();
        } catch (e) {
          if (oauth.isDPoPNonceError(e)) return call();
          throw e;
        }
      };
      return {
        client,
        dpop,
        /** POST /oauth/par with these parameters (PKCE added): the URL to send the person's browser to, and the verifier. */
        async push(params: Record<string, string>) {
          const verifier = oauth.generateRandomCodeVerifier();
          const body = new URLSearchParams({
            redirect_uri: REDIRECT_URI,
            response_type: 'code',
            scope: 'partner offline_access',
            code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
            code_challenge_method: 'S256',
            ...params,
          });
          const pushed = await withNonce(async () =>
            oauth.processPushedAuthorizationResponse(as, client, await oauth.pushedAuthorizationRequest(as, client, auth, body, opts)),
          );
          const url = new URL(as.authorization_endpoint!);
          url.searchParams.set('client_id', clientId);
          url.searchParams.set('request_uri', pushed.request_uri);
          return { url, verifier };
        },
        /** The token request for the code the redirect brought back. */
        async tokens(callback: URL, verifier: string) {
          const params = oauth.validateAuthResponse(as, client, callback);
          return withNonce(async () =>
            oauth.processAuthorizationCodeResponse(
              as,
              client,
              await oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT_URI, verifier, opts),
            ),
          );
        },
        async refresh(refreshToken: string) {
          return withNonce(async () =>
            oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, opts)),
          );
        },
        /** GET on the partner plane with the access token and a fresh DPoP proof. */
        async read(accessToken: string, path: string): Promise<Response> {
          try {
            return await oauth.protectedResourceRequest(accessToken, 'GET', new URL(`${baseUrl}${path}`), new Headers(), null, opts);
          } catch (e) {
            // A refusal with a WWW-Authenticate challenge is thrown by oauth4webapi: the test reads the answer itself.
            if (e instanceof oauth.WWWAuthenticateChallengeError) return e.response;
            throw e;
          }
        },
      };
    },
  };
}

/** Follows the browser's redirects from `url` until it reaches the consent page (its uid) or leaves the service (the app's callback). */
export async function browse(url: URL, jar: CookieJar): Promise<{ readonly interaction: string } | { readonly callback: URL }> {
  let at = url;
  for (let hops = 0; hops < 10; hops++) {
    const response = await fetch(at, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(response);
    const location = response.headers.get('location');
    if (!location) throw new Error(`${at.pathname} answered ${response.status} ${await response.text()}`);
    const next = new URL(location, at);
    if (next.origin !== at.origin) return { callback: next };
    const uid = /^\/oauth\/interaction\/([^/]+)$/.exec(next.pathname)?.[1];
    if (uid) return { interaction: uid };
    at = next;
  }
  throw new Error('too many redirects');
}
