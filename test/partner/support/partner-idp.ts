import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { listening } from '../../support/listening.js';

/** The service's client id at the partner's provider. */
export const SERVICE_CLIENT_ID = 'data-sharing-service';

/**
 * A partner organization's own OpenID Connect provider: a second oidc-provider, with its
 * development login (any login, any password) and consent pages. It knows the service as a
 * confidential client authenticating with private_key_jwt under the keys the service publishes.
 * Served on `localhost`, another site than the service's 127.0.0.1, so its cookies are its own and
 * its redirects back to the service are cross-site, as a real partner's are.
 */
export async function partnerIdp(
  service: { readonly base: string; readonly jwks: { readonly keys: readonly object[] } },
  email: (login: string) => string,
) {
  const server = createServer();
  const port = await listening(server);
  const issuer = `http://localhost:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'partner-1', alg: 'RS256', use: 'sig' }] as never[] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 300, IdToken: 300, AuthorizationCode: 60 },
    clients: [
      {
        client_id: SERVICE_CLIENT_ID,
        application_type: 'web',
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [...service.jwks.keys] as never[] },
        redirect_uris: [`${service.base}/oauth/partner-sign-in/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    enabledJWA: { clientAuthSigningAlgValues: ['Ed25519', 'EdDSA', 'ES256', 'PS256', 'RS256'] },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, email: email(sub), email_verified: true }) }),
  });
  /** Every token the provider gave the service: none may be kept by it beyond the sign-in. */
  const issued: string[] = [];
  provider.on('grant.success', (ctx) => {
    const body = ctx.body as Record<string, unknown>;
    for (const name of ['access_token', 'id_token', 'refresh_token']) {
      const token = body[name];
      if (typeof token === 'string') issued.push(token);
    }
  });
  /** Sign-ins at the provider's authorization endpoint: what "one click" is counted by. */
  const logins: string[] = [];
  provider.on('interaction.started', (_ctx, prompt) => logins.push(prompt.name));
  const serve = provider.callback();
  server.on('request', (req, res) => void serve(req, res));
  return {
    issuer,
    issued,
    logins,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
