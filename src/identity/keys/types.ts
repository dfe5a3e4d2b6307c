import type { CryptoKey } from 'jose';

/** A private Ed25519 JWK as we keep it: checked, with its kid, nothing else carried along. */
export type PrivateJwk = {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly kid: string;
  readonly x: string;
  readonly d: string;
  readonly alg: 'EdDSA';
  readonly use: 'sig';
};

/** What GET /.well-known/jwks.json publishes: the same key without its private part. */
export type PublicJwk = Omit<PrivateJwk, 'd'>;

export type SigningKey = { readonly kid: string; readonly privateKey: CryptoKey };

export type Keys = {
  /** The first key of the set: every new token is signed with it. */
  readonly signing: SigningKey;
  /** Every key of the set by kid, so tokens of a rotated-out first key still verify. */
  readonly verifying: ReadonlyMap<string, CryptoKey>;
  readonly jwks: { readonly keys: readonly PublicJwk[] };
  /** 32 bytes that wrap every other secret; never logged. */
  readonly masterKey: Buffer;
};
