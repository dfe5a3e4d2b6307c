import { isRefusal, refuse, type Refusal } from '../../commands/refusal.js';
import {
  issuerOf,
  jwksUriOf,
  MAX_CLIENT_URL_LENGTH,
  MAX_IDP_CLIENT_ID,
  MAX_REDIRECT_URIS,
  publicJwksOf,
  redirectUriOf,
  type IdentityProvider,
  type JwksUri,
  type OAuthClientMetadata,
  type PublicJwks,
  type RedirectPolicy,
  type RedirectUri,
} from '../../organizations/app-metadata.js';
import { exactTextAt, objectAt, textAt, type Fields } from '../fields.js';

const MAX_APP_NAME = 200;

export type AppBody = { readonly name: string; readonly client: OAuthClientMetadata | null };

const given = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * POST /org/v1/apps: {name, redirectUris?, jwks? | jwksUri?, identityProvider?} (R-ORG-13, R-ORG-16, R-ORG-17, R-ORG-19). Without
 * redirectUris an app for user.request.open, as before; with them an OAuth client, which needs
 * exactly one of jwks and jwksUri, and may carry the organization's identity provider.
 */
export async function appBody(raw: unknown, policy: RedirectPolicy): Promise<AppBody | Refusal> {
  const body = objectAt(raw, 'body');
  if (isRefusal(body)) return body;
  const name = textAt(body.name, 'name', MAX_APP_NAME);
  if (isRefusal(name)) return name;
  if (!given(body.redirectUris)) {
    const keys = ['jwks', 'jwksUri', 'identityProvider'].find((field) => given(body[field]));
    return keys ? refuse('invalid_request', `${keys} is taken only with redirectUris`) : { name, client: null };
  }
  const redirectUris = redirectUrisAt(body.redirectUris, policy);
  if (isRefusal(redirectUris)) return redirectUris;
  const keys = await clientKeysAt(body);
  if (isRefusal(keys)) return keys;
  if (!given(body.identityProvider)) return { name, client: { redirectUris, ...keys } };
  const identityProvider = identityProviderAt(body.identityProvider, policy);
  return isRefusal(identityProvider) ? identityProvider : { name, client: { redirectUris, ...keys, identityProvider } };
}

/** R-ORG-19: {issuer, clientId}, nothing else. */
function identityProviderAt(value: unknown, policy: RedirectPolicy): IdentityProvider | Refusal {
  const provider = objectAt(value, 'identityProvider');
  if (isRefusal(provider)) return provider;
  const extra = Object.keys(provider).find((field) => field !== 'issuer' && field !== 'clientId');
  if (extra) return refuse('invalid_request', `identityProvider.${extra} is not taken: it has issuer and clientId`);
  const text = exactTextAt(provider.issuer, 'identityProvider.issuer', MAX_CLIENT_URL_LENGTH);
  if (isRefusal(text)) return text;
  const issuer = issuerOf(text, 'identityProvider.issuer', policy);
  if (isRefusal(issuer)) return issuer;
  const clientId = textAt(provider.clientId, 'identityProvider.clientId', MAX_IDP_CLIENT_ID);
  return isRefusal(clientId) ? clientId : { issuer, clientId };
}

function redirectUrisAt(value: unknown, policy: RedirectPolicy): RedirectUri[] | Refusal {
  if (!Array.isArray(value)) return refuse('invalid_request', 'redirectUris must be an array of URLs');
  if (value.length === 0 || value.length > MAX_REDIRECT_URIS)
    return refuse('invalid_request', `redirectUris must hold 1 to ${MAX_REDIRECT_URIS} URLs`);
  const uris: RedirectUri[] = [];
  for (const [i, item] of value.entries()) {
    const path = `redirectUris[${i}]`;
    const text = exactTextAt(item, path, MAX_CLIENT_URL_LENGTH);
    if (isRefusal(text)) return text;
    const uri = redirectUriOf(text, path, policy);
    if (isRefusal(uri)) return uri;
    if (uris.includes(uri)) return refuse('invalid_request', `${path} is listed twice`);
    uris.push(uri);
  }
  return uris;
}

async function clientKeysAt(body: Fields): Promise<{ jwks: PublicJwks } | { jwksUri: JwksUri } | Refusal> {
  if (given(body.jwks) && given(body.jwksUri)) return refuse('invalid_request', 'jwks and jwksUri: send one of them, not both');
  if (given(body.jwks)) {
    const jwks = await publicJwksOf(body.jwks, 'jwks');
    return isRefusal(jwks) ? jwks : { jwks };
  }
  if (!given(body.jwksUri))
    return refuse('invalid_request', 'jwks or jwksUri is required with redirectUris: the app authenticates with private_key_jwt');
  const text = exactTextAt(body.jwksUri, 'jwksUri', MAX_CLIENT_URL_LENGTH);
  if (isRefusal(text)) return text;
  const jwksUri = jwksUriOf(text, 'jwksUri');
  return isRefusal(jwksUri) ? jwksUri : { jwksUri };
}
