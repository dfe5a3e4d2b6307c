import { importJWK } from 'jose';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import type { JsonObject } from '../events/envelope.js';
import type { AppIdentityProvider, AppJwks } from '../events/organization-events.js';

/** R-ORG-16: an app has 1 to 10 redirect URIs; each URL of an app at most this long (the edge checks the length). */
export const MAX_REDIRECT_URIS = 10;
export const MAX_CLIENT_URL_LENGTH = 2048;
/** R-ORG-19: the service's client id at an organization's identity provider. */
export const MAX_IDP_CLIENT_ID = 255;
/** R-ORG-17: 1 to 5 keys, at most 8 KiB of JSON in all. */
export const MAX_JWKS_KEYS = 5;
export const MAX_JWKS_BYTES = 8 * 1024;

declare const urlKind: unique symbol;
/** A redirect URI judged at registration (R-ORG-16), kept as sent: the authorization server compares it as a string. */
export type RedirectUri = string & { readonly [urlKind]: 'redirect' };
/** Where the app publishes its keys: https, judged at registration (R-ORG-17). */
export type JwksUri = string & { readonly [urlKind]: 'jwks' };
/** An OpenID Connect provider's issuer, judged at registration (R-ORG-19). */
export type IssuerUrl = string & { readonly [urlKind]: 'issuer' };

/**
 * Contract §13: the organization's OpenID Connect provider an app may carry ("Continue with
 * <organization>"), where the service is a client of this id; it authenticates with private_key_jwt
 * and its keys at /oauth/partner-sign-in/jwks (docs/oauth.md), so no shared secret is held.
 */
export type IdentityProvider = { readonly issuer: IssuerUrl; readonly clientId: string };
declare const checkedKeys: unique symbol;
/** 1 to 5 public signing keys, each imported once to prove it is a key of its type (R-ORG-17). */
export type PublicJwks = AppJwks & { readonly [checkedKeys]: true };

/** What the authorization server needs of an app (contract §13): its redirect URIs, and its keys by value or by URL. */
export type OAuthClientMetadata = { readonly redirectUris: readonly RedirectUri[]; readonly identityProvider?: IdentityProvider } & (
  { readonly jwks: PublicJwks; readonly jwksUri?: never } | { readonly jwksUri: JwksUri; readonly jwks?: never }
);

/** OAUTH_ALLOW_LOOPBACK_HTTP: plain http redirect URIs on this machine's loopback (RFC 8252 §7.3), for native apps and development. */
export type RedirectPolicy = { readonly loopbackHttp: boolean };

/** As URL.hostname writes them: an IPv6 literal keeps its brackets. */
const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', '[::1]', 'localhost'];
export const isLoopbackHost = (hostname: string): boolean => LOOPBACK_HOSTS.includes(hostname);
/** RFC 3986: a URI is printable ASCII; anything else must be percent-encoded, or the URL parser would rewrite it. */
const NOT_URI_CHARACTER = /[^\x21-\x7e]/;

/** An absolute URL without fragment or credentials, or what is wrong with it (naming `path`). */
function absoluteUrl(text: string, path: string): URL | string {
  if (NOT_URI_CHARACTER.test(text)) return `${path} must be an absolute URL of printable ASCII characters, without spaces`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${path} must be an absolute URL`;
  }
  if (text.includes('#')) return `${path} must not have a fragment (#)`;
  if (url.username !== '' || url.password !== '') return `${path} must carry no user name or password`;
  return url;
}

/** R-ORG-16: https, or with the policy http on a loopback address. */
export function redirectUriOf(text: string, path: string, policy: RedirectPolicy): RedirectUri | Refusal {
  const url = httpsOrLoopback(text, path, policy);
  return isRefusal(url) ? url : (text as RedirectUri);
}

/** R-ORG-19: an OpenID Connect issuer is an https URL without query (OpenID Connect Discovery §2), loopback http with the policy. */
export function issuerOf(text: string, path: string, policy: RedirectPolicy): IssuerUrl | Refusal {
  const url = httpsOrLoopback(text, path, policy);
  if (isRefusal(url)) return url;
  return url.search === '' ? (text as IssuerUrl) : refuse('invalid_request', `${path} must not have a query (?)`);
}

function httpsOrLoopback(text: string, path: string, policy: RedirectPolicy): URL | Refusal {
  const url = absoluteUrl(text, path);
  if (typeof url === 'string') return refuse('invalid_request', url);
  if (url.protocol === 'https:') return url;
  if (policy.loopbackHttp && url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  return refuse(
    'invalid_request',
    policy.loopbackHttp
      ? `${path} must be an https URL, or http on a loopback address (127.0.0.1, [::1] or localhost)`
      : `${path} must be an https URL`,
  );
}

/** R-ORG-17: https only, whatever the policy. */
export function jwksUriOf(text: string, path: string): JwksUri | Refusal {
  const url = absoluteUrl(text, path);
  if (typeof url === 'string') return refuse('invalid_request', url);
  return url.protocol === 'https:' ? (text as JwksUri) : refuse('invalid_request', `${path} must be an https URL`);
}

/** The members of a private or symmetric key: a client sends its public key only. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
/**
 * The signing keys FAPI 2.0 allows (PS256, ES256, EdDSA with Ed25519): the members each has, and
 * the algorithms it may name, the first the one it is imported for.
 */
type KeyType = { readonly crv?: string; readonly members: readonly string[]; readonly algs: readonly [string, ...string[]] };
const KEY_TYPES: ReadonlyMap<string, KeyType> = new Map([
  ['OKP', { crv: 'Ed25519', members: ['x'], algs: ['EdDSA', 'Ed25519'] }],
  ['EC', { crv: 'P-256', members: ['x', 'y'], algs: ['ES256'] }],
  ['RSA', { members: ['n', 'e'], algs: ['PS256'] }],
]);
const COMMON_MEMBERS = ['kty', 'kid', 'use', 'alg', 'crv'];
const MIN_RSA_BITS = 2048;
const KID = /^[\x21-\x7e]{1,200}$/;

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** R-ORG-17: `{keys: [...]}` of 1 to 5 public signing keys with distinct kids, at most 8 KiB. */
export async function publicJwksOf(value: unknown, path: string): Promise<PublicJwks | Refusal> {
  const jwks = await checkedJwks(value, path);
  return typeof jwks === 'string' ? refuse('invalid_request', jwks) : jwks;
}

/** The keys, or what is wrong with them. */
async function checkedJwks(value: unknown, path: string): Promise<PublicJwks | string> {
  if (!isObject(value)) return `${path} must be a JWK Set, {keys: [...]}`;
  const { keys } = value;
  if (!Array.isArray(keys)) return `${path}.keys must be an array of JWKs`;
  if (keys.length === 0 || keys.length > MAX_JWKS_KEYS) return `${path}.keys must hold 1 to ${MAX_JWKS_KEYS} keys`;
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_JWKS_BYTES) return `${path} must be at most ${MAX_JWKS_BYTES / 1024} KiB of JSON`;
  const checked: JsonObject[] = [];
  const kids = new Set<string>();
  for (const [i, key] of keys.entries()) {
    const jwk = await publicJwkOf(key, `${path}.keys[${i}]`);
    if (typeof jwk === 'string') return jwk;
    if (kids.has(jwk.kid)) return `${path}.keys[${i}].kid ${JSON.stringify(jwk.kid)} is another key's kid too`;
    kids.add(jwk.kid);
    checked.push(jwk);
  }
  return { keys: checked } as PublicJwks;
}

async function publicJwkOf(value: unknown, path: string): Promise<(JsonObject & { kid: string }) | string> {
  if (!isObject(value)) return `${path} must be a JWK object`;
  const secret = PRIVATE_MEMBERS.find((member) => Object.hasOwn(value, member));
  if (secret) return `${path} is a private key (it has ${JSON.stringify(secret)}): send the public key only`;
  const kty = typeof value.kty === 'string' ? value.kty : '';
  const type = KEY_TYPES.get(kty);
  if (!type) return `${path}.kty must be OKP (crv Ed25519), EC (crv P-256) or RSA`;
  const jwk: Record<string, string> = {};
  for (const [member, v] of Object.entries(value)) {
    if (!COMMON_MEMBERS.includes(member) && !type.members.includes(member))
      return `${path}.${member} is not taken: a ${kty} key here has ${[...COMMON_MEMBERS, ...type.members].join(', ')}`;
    if (typeof v !== 'string') return `${path}.${member} must be a string`;
    jwk[member] = v;
  }
  if (jwk.crv !== type.crv) return type.crv ? `${path}.crv must be ${type.crv} for kty ${kty}` : `${path}.crv is not taken for kty ${kty}`;
  const { kid, use, alg } = jwk;
  if (kid === undefined || !KID.test(kid)) return `${path}.kid is required: 1 to 200 printable ASCII characters, without spaces`;
  if (use !== undefined && use !== 'sig') return `${path}.use must be sig: the app signs with these keys`;
  if (alg !== undefined && !type.algs.includes(alg)) return `${path}.alg must be ${type.algs.join(' or ')} for kty ${kty}`;
  let key: Awaited<ReturnType<typeof importJWK>>;
  try {
    key = await importJWK(jwk, type.algs[0]);
  } catch {
    return `${path} is not a valid ${kty} public key`;
  }
  if (key instanceof Uint8Array || key.type !== 'public') return `${path} is not a valid ${kty} public key`;
  const bits = 'modulusLength' in key.algorithm ? Number(key.algorithm.modulusLength) : null;
  if (bits !== null && bits < MIN_RSA_BITS) return `${path}.n must be a modulus of at least ${MIN_RSA_BITS} bits`;
  return { ...jwk, kid };
}

/** The metadata as an event, the read model and the answers hold it: none for an app without redirect URIs. */
export type ClientFields = {
  redirectUris: string[];
  jwks: AppJwks | null;
  jwksUri: string | null;
  identityProvider: AppIdentityProvider | null;
};

export function clientFields(metadata: OAuthClientMetadata | null): ClientFields {
  if (metadata === null) return { redirectUris: [], jwks: null, jwksUri: null, identityProvider: null };
  const { redirectUris, jwks, jwksUri, identityProvider } = metadata;
  return {
    redirectUris: [...redirectUris],
    jwks: jwks ?? null,
    jwksUri: jwksUri ?? null,
    identityProvider: identityProvider ? { issuer: identityProvider.issuer, clientId: identityProvider.clientId } : null,
  };
}

/** What an answer shows of an app's metadata: redirectUris, jwks or jwksUri, and identityProvider, only when set. */
export type ClientMetadataView = {
  readonly redirectUris?: string[];
  readonly jwks?: AppJwks;
  readonly jwksUri?: string;
  readonly identityProvider?: AppIdentityProvider;
};

export function clientMetadataView(fields: ClientFields): ClientMetadataView {
  if (fields.redirectUris.length === 0) return {};
  return {
    redirectUris: fields.redirectUris,
    ...(fields.jwks ? { jwks: fields.jwks } : {}),
    ...(fields.jwksUri ? { jwksUri: fields.jwksUri } : {}),
    ...(fields.identityProvider ? { identityProvider: fields.identityProvider } : {}),
  };
}
