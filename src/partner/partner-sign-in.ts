import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { importJWK } from 'jose';
import * as rp from 'openid-client';
import { isRefusal, refuse, refuseTransport, type AnyRefusal } from '../commands/refusal.js';
import type { SqlDb } from '../db/sql.js';
import { privateJwkFromSeed } from '../identity/keys/ed25519-jwk.js';
import type { Email } from '../identity/email.js';
import type { IdentityService, LoginSession, PartnerSubject } from '../identity/identity-service.js';
import type { EventContext } from '../events/envelope.js';
import type { ClientAddress } from '../limits/client-address.js';
import type { Logger } from '../logger.js';
import type { AppIdentityProvider } from '../events/organization-events.js';
import type { OAuthClient } from '../organizations/index.js';
import type { OutboundFetch } from './outbound-fetch.js';

/** A sign-in at a partner's provider is finished within this, its first-time link (the code from the mail) too. */
export const PARTNER_SIGN_IN_SECONDS = 15 * 60;
/** Errors after which a silent (prompt=none) sign-in is asked again, with the provider's page (OIDC Core §3.1.2.6). */
const ASK_AGAIN = new Set(['login_required', 'interaction_required', 'consent_required', 'account_selection_required']);

const MAX_EMAIL = 320;

const sql = {
  start: `INSERT INTO oauth.partner_sign_ins (state, browser, uid, client_id, verifier, nonce, silent, expires_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, now() + $8::integer * interval '1 second')`,
  take: `DELETE FROM oauth.partner_sign_ins WHERE state = $1 AND browser = $2 AND expires_at > now()
         RETURNING uid, client_id, verifier, nonce, silent`,
  pend: `INSERT INTO oauth.partner_links (browser, uid, issuer, subject, expires_at)
         VALUES ($1, $2, $3, $4, now() + $5::integer * interval '1 second')
         ON CONFLICT (browser) DO UPDATE SET uid = EXCLUDED.uid, issuer = EXCLUDED.issuer, subject = EXCLUDED.subject,
           expires_at = EXCLUDED.expires_at`,
  pending: `SELECT uid, issuer, subject FROM oauth.partner_links WHERE browser = $1 AND expires_at > now()`,
  linked: `DELETE FROM oauth.partner_links WHERE browser = $1`,
  sweep: `DELETE FROM oauth.partner_sign_ins WHERE expires_at < now();
          DELETE FROM oauth.partner_links WHERE expires_at < now()`,
};

type Started = { uid: string; client_id: string; verifier: string; nonce: string; silent: boolean };

export type PartnerSignInDeps = {
  readonly db: SqlDb;
  readonly baseUrl: string;
  /** The service vault's data key: the service's key as a client of partners' providers derives from it. */
  readonly rootKey: Buffer;
  readonly clients: (clientId: string) => Promise<OAuthClient | null>;
  /** How the providers are reached: https to public addresses (loopback too, with OAUTH_ALLOW_LOOPBACK_HTTP). */
  readonly fetch: OutboundFetch;
  readonly identities: Pick<IdentityService, 'signInLinked' | 'verifyLoginLinking'>;
  readonly logger: Logger;
};

/**
 * What a step of the sign-in answers: where the browser goes next (with the session to set once the
 * person is signed in), or, on a first sign-in, the address to link with its one-time code.
 */
export type SignInStep =
  | { readonly redirectTo: string; readonly session?: LoginSession }
  | { readonly link: { readonly organization: string; readonly email: string | null } };

type Context = (actor: EventContext['actor']) => EventContext;

/**
 * "Continue with <organization>" (contract §13): the service as a relying party of the organization's
 * OpenID Connect provider, on openid-client: authorization code with PKCE S256, state and nonce,
 * `prompt=none` first. Each sign-in is bound to the browser that began it by a cookie and used once.
 * The provider's tokens stay in this call: only the ID token's issuer, subject and email go on.
 */
export class PartnerSignIn {
  private readonly configurations = new Map<string, Promise<rp.Configuration>>();
  private readonly key: Promise<{ readonly jwk: object; readonly auth: rp.ClientAuth }>;
  readonly redirectUri: string;

  private constructor(private readonly deps: PartnerSignInDeps) {
    this.redirectUri = `${deps.baseUrl}/oauth/partner-sign-in/callback`;
    this.key = signingKey(deps.rootKey);
  }

  static async open(deps: PartnerSignInDeps): Promise<PartnerSignIn> {
    const signIn = new PartnerSignIn(deps);
    await signIn.key;
    return signIn;
  }

  /** The public key the service signs its client assertions with (private_key_jwt): what a partner registers. */
  async jwks(): Promise<{ readonly keys: readonly object[] }> {
    return { keys: [(await this.key).jwk] };
  }

  /** "Continue with": the provider's authorization URL, silent first; `browser` is the cookie that binds it. */
  async start(uid: string, client: OAuthClient, browser: string, silent = true): Promise<{ readonly redirectTo: string } | AnyRefusal> {
    const provider = client.identityProvider;
    if (!provider) return refuse('not_found', 'this app has no sign-in of its organization’s');
    const config = await this.configuration(provider);
    if (config instanceof Error) return unreachable(client);
    const verifier = rp.randomPKCECodeVerifier();
    const state = rp.randomState();
    const nonce = rp.randomNonce();
    await this.deps.db.query(sql.start, [state, digest(browser), uid, client.clientId, verifier, nonce, silent, PARTNER_SIGN_IN_SECONDS]);
    const url = rp.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: 'openid email',
      code_challenge: await rp.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ...(silent ? { prompt: 'none' } : {}),
    });
    return { redirectTo: url.href };
  }

  /**
   * The provider sent the browser back (`callback` is the query it came with). A person signed out
   * there after a silent try goes to the provider's page; one whose identity there is linked is
   * signed in (R-PART-07); a first-comer is asked for an address's code to link it (R-PART-08).
   */
  async complete(callback: string, browser: string, context: Context): Promise<SignInStep | AnyRefusal> {
    const query = new URLSearchParams(callback);
    const state = query.get('state') ?? '';
    const started = (await this.deps.db.query<Started>(sql.take, [state, digest(browser)])).rows[0];
    if (!started) return refuse('not_found', 'no such sign-in in progress in this browser: start again from the app');
    const client = await this.deps.clients(started.client_id);
    if (!client?.identityProvider) return refuse('not_found', 'this app has no sign-in of its organization’s');
    const error = query.get('error');
    if (error !== null && started.silent && ASK_AGAIN.has(error)) return this.start(started.uid, client, browser, false);
    if (error !== null) return refuse('forbidden', `${client.organizationName}’s sign-in did not sign you in (${error.slice(0, 64)})`);
    const config = await this.configuration(client.identityProvider);
    if (config instanceof Error) return unreachable(client);
    let claims: { readonly partner: PartnerSubject; readonly email: string | null };
    try {
      claims = await this.claimsOf(config, query, started);
    } catch (err) {
      this.deps.logger.warn({ err, issuer: client.identityProvider.issuer }, 'partner sign-in refused');
      return refuse('forbidden', `${client.organizationName}’s sign-in did not sign you in: start again from the app`);
    }
    const { partner, email } = claims;
    const session = await this.deps.identities.signInLinked(partner, context);
    if (isRefusal(session)) return session;
    if (session !== null) return { redirectTo: interactionOf(started.uid), session };
    await this.deps.db.query(sql.pend, [digest(browser), started.uid, partner.issuer, partner.subject, PARTNER_SIGN_IN_SECONDS]);
    return { link: { organization: client.organizationName, email } };
  }

  /** A first sign-in's link: the code mailed to the address signs the person in, and links their identity there to that account. */
  async link(browser: string, email: Email, code: string, client: ClientAddress, context: Context): Promise<SignInStep | AnyRefusal> {
    const row = (await this.deps.db.query<{ uid: string; issuer: string; subject: string }>(sql.pending, [digest(browser)])).rows[0];
    if (!row) return refuse('not_found', 'no sign-in waits for its link in this browser: start again from the app');
    const session = await this.deps.identities.verifyLoginLinking(email, code, client, context, {
      issuer: row.issuer,
      subject: row.subject,
    });
    if (isRefusal(session)) return session;
    await this.deps.db.query(sql.linked, [digest(browser)]);
    return { redirectTo: interactionOf(row.uid), session };
  }

  /**
   * The code's tokens (PKCE, state, nonce and the ID token checked by openid-client), read for who
   * the person is and the address to suggest; they live in this call only and are kept nowhere.
   * A provider that puts the email claim in its UserInfo only (OIDC Core §5.4) is asked there.
   */
  private async claimsOf(
    config: rp.Configuration,
    query: URLSearchParams,
    started: Started,
  ): Promise<{ readonly partner: PartnerSubject; readonly email: string | null }> {
    const tokens = await rp.authorizationCodeGrant(config, new URL(`${this.redirectUri}?${query}`), {
      pkceCodeVerifier: started.verifier,
      expectedState: query.get('state') ?? '',
      expectedNonce: started.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    let email = claims.email;
    if (typeof email !== 'string' && config.serverMetadata().userinfo_endpoint)
      email = (await rp.fetchUserInfo(config, tokens.access_token, claims.sub).catch(() => ({ email: undefined }))).email;
    return {
      partner: { issuer: claims.iss, subject: claims.sub },
      email: typeof email === 'string' && email.length <= MAX_EMAIL ? email : null,
    };
  }

  async sweep(): Promise<void> {
    await this.deps.db.exec(sql.sweep);
  }

  /** The provider's discovery document, read once per issuer (a failure is read again next time). */
  private async configuration({ issuer, clientId }: AppIdentityProvider): Promise<rp.Configuration | Error> {
    const key = `${issuer}\u0000${clientId}`;
    let config = this.configurations.get(key);
    if (!config) {
      const { auth } = await this.key;
      config = rp.discovery(new URL(issuer), clientId, undefined, auth, {
        // openid-client's options are fetch's (its body type only names Uint8Array apart from BufferSource).
        [rp.customFetch]: (url, options) => this.deps.fetch(url, options as RequestInit),
        execute: issuer.startsWith('http:') ? [rp.allowInsecureRequests] : [],
        timeout: 10,
      });
      this.configurations.set(key, config);
    }
    try {
      return await config;
    } catch (err) {
      this.configurations.delete(key);
      this.deps.logger.warn({ err, issuer }, 'partner identity provider unreachable');
      return err instanceof Error ? err : new Error(String(err));
    }
  }
}

const unreachable = (client: OAuthClient) =>
  refuseTransport('service_unavailable', `${client.organizationName}’s sign-in cannot be reached now: try again, or use your email`);

/** The browser's cookie is stored hashed: the table alone binds no browser. */
const digest = (browser: string): string => createHash('sha256').update(browser).digest('base64url');

/** A fresh binding for a browser starting a sign-in: its cookie's value. */
export const newBrowserBinding = (): string => randomBytes(32).toString('base64url');

/** Back to the app's authorization, whose consent page the person is now signed in for. */
const interactionOf = (uid: string): string => `/oauth/interaction/${encodeURIComponent(uid)}`;

async function signingKey(rootKey: Buffer): Promise<{ jwk: object; auth: rp.ClientAuth }> {
  const seed = Buffer.from(hkdfSync('sha256', rootKey, Buffer.alloc(0), 'partner-sign-in-v1', 32));
  const privateJwk = await privateJwkFromSeed(seed);
  const { kty, crv, x, kid } = privateJwk;
  const key = await importJWK({ ...privateJwk, alg: 'Ed25519' }, 'Ed25519');
  if (key instanceof Uint8Array) throw new Error('an Ed25519 key imports as a CryptoKey');
  return { jwk: { kty, crv, x, kid, alg: 'Ed25519', use: 'sig' }, auth: rp.PrivateKeyJwt({ key, kid }) };
}
