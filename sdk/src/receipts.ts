import { base64url, compactVerify, decodeProtectedHeader, errors, importJWK, type JWK } from 'jose';

/** A consent status a receipt states (docs/receipts.md): DPV's, and `dss:ConsentSuspended`, a pause the person may end. */
export type ReceiptStatus =
  'dpv:ConsentGiven' | 'dpv:RenewedConsentGiven' | 'dpv:ConsentWithdrawn' | 'dpv:ConsentRefused' | 'dss:ConsentSuspended';

/** The log events of a request that issue a receipt. */
export type ReceiptEventType =
  | 'RequestAccepted'
  | 'SlotGranted'
  | 'SlotWithdrawn'
  | 'RequestSuspended'
  | 'RequestResumed'
  | 'RequestRevoked'
  | 'RequestRejected'
  | 'AppAuthorized';

/** One slot of the pinned manifest version, as a receipt states it. */
export type ReceiptSlot = {
  readonly id: string;
  readonly label: string;
  readonly status: 'dpv:ConsentGiven' | 'dpv:ConsentWithdrawn' | 'dpv:ConsentRequested';
  /** Each granted record as base64url SHA-256 of its resource id (a UUID, ASCII). */
  readonly records: readonly string[];
};

/**
 * The payload of a signed consent receipt (docs/receipts.md). verifyReceipts checks `iss`,
 * `request`, `seq` and `prev`; the rest is as the service signed it.
 */
export type ReceiptPayload = {
  /** The service that issued it: its BASE_URL. */
  readonly iss: string;
  /** The receipt's own id. */
  readonly jti: string;
  /** When the transition happened (the causing event's time), Unix seconds. */
  readonly iat: number;
  /** The request the consent is about. */
  readonly request: string;
  /** 1 for the request's first receipt, then one more each. */
  readonly seq: number;
  /** base64url (no padding) SHA-256 of the previous receipt's compact JWS; null on the first. */
  readonly prev: string | null;
  readonly event: { readonly id: string; readonly type: ReceiptEventType; readonly at: string };
  /** The consent's state after the event. */
  readonly status: ReceiptStatus;
  readonly controller: { readonly id: string; readonly name: string };
  readonly purpose: string;
  /** How long the organization may keep copies (ISO 8601 duration, from acceptance); null before acceptance. */
  readonly retention: string | null;
  readonly manifest: { readonly id: string; readonly version: number };
  readonly initiatedBy: 'org' | 'recipient';
  /** The app (its clientId) when the request came through the hosted consent page. */
  readonly app: string | null;
  readonly slots: readonly ReceiptSlot[];
};

/** Why a list of receipts does not verify: the rule its first failing receipt breaks. */
export type ReceiptFailure = 'not_a_receipt' | 'unknown_key' | 'signature' | 'issuer' | 'request' | 'sequence' | 'chain';

export type ReceiptsVerdict =
  | { readonly ok: true; readonly count: number; readonly payloads: ReceiptPayload[] }
  | {
      readonly ok: false;
      /** The 0-based position of the first receipt that breaks a rule. */
      readonly index: number;
      /** Its seq as it claims it (not verified when the reason is not_a_receipt, unknown_key or signature); null when unreadable. */
      readonly seq: number | null;
      readonly reason: ReceiptFailure;
      /** A sentence naming it, counting receipts from 1: "receipt 3 (seq 3): its prev is not the digest of receipt 2". */
      readonly message: string;
    };

/** A JWK Set: the service's /.well-known/jwks.json, or a saved copy of it. */
export type ReceiptKeys = { readonly keys: readonly JWK[] };

/** What the caller knows already: the issuer whose keys `jwks` are, the request the receipts should be about. */
export type ReceiptExpectations = { readonly issuer?: string; readonly request?: string };

const RECEIPT_TYP = 'consent-receipt+jwt';
/** EdDSA as RFC 7515 registers it, and Ed25519 as RFC 9864 names it. */
const ALGORITHMS = ['EdDSA', 'Ed25519'];

/**
 * Verifies a request's receipts offline, from first to last (docs/receipts.md, "Verifying"): each a
 * compact JWS with typ consent-receipt+jwt, alg EdDSA and a kid found in `jwks`, its signature
 * verified by jose; all of the same `iss` and `request`; the first with seq 1 and prev null, each
 * next one with the seq after its predecessor's and prev the SHA-256 (base64url) of its compact JWS.
 * Answers the payloads, or the first receipt that breaks a rule: an edited receipt fails its own
 * signature, a removed or moved one breaks the chain at the receipt that now follows the gap. Only
 * what comes after the last receipt cannot be told apart from nothing: a list cut short at its end
 * verifies. An empty list verifies, with count 0.
 *
 * `expected` pins what the chain alone cannot prove: the issuer the keys were fetched from (a
 * receipt naming another `iss` fails with 'issuer') and the request asked about ('request').
 */
export async function verifyReceipts(
  receipts: readonly string[],
  jwks: ReceiptKeys,
  expected: ReceiptExpectations = {},
): Promise<ReceiptsVerdict> {
  const keys = keySet(jwks);
  const payloads: ReceiptPayload[] = [];
  for (const [index, jws] of receipts.entries()) {
    const n = index + 1;
    const failure = (reason: ReceiptFailure, seq: number | null, what: string): ReceiptsVerdict => ({
      ok: false,
      index,
      seq,
      reason,
      message: `receipt ${n}${seq === null ? '' : ` (seq ${seq})`}: ${what}`,
    });
    const checked = await signed(jws, keys);
    if ('reason' in checked) return failure(checked.reason, claimedSeq(jws), checked.what);
    const payload = checked.payload;
    const first = payloads[0] ?? { iss: expected.issuer, request: expected.request };
    const source = index === 0 ? 'the one expected' : "receipt 1's";
    if (first.iss !== undefined && payload.iss !== first.iss)
      return failure('issuer', payload.seq, `its iss is ${JSON.stringify(payload.iss)}, not ${JSON.stringify(first.iss)} (${source})`);
    if (first.request !== undefined && payload.request !== first.request)
      return failure('request', payload.seq, `it is of request ${payload.request}, not ${first.request} (${source})`);
    const previous = payloads[index - 1];
    if (previous === undefined) {
      if (payload.seq !== 1) return failure('sequence', payload.seq, 'the first receipt must have seq 1');
      if (payload.prev !== null) return failure('chain', payload.seq, 'the first receipt must have prev null');
    } else {
      if (payload.seq !== previous.seq + 1)
        return failure('sequence', payload.seq, `its seq must be ${previous.seq + 1}, the one after receipt ${index}'s`);
      if (payload.prev !== (await receiptDigest(receipts[index - 1]!)))
        return failure('chain', payload.seq, `its prev is not the digest of receipt ${index}`);
    }
    payloads.push(payload);
  }
  return { ok: true, count: payloads.length, payloads };
}

/** base64url (no padding) SHA-256 of a compact JWS's ASCII: what the next receipt's `prev` holds. */
async function receiptDigest(jws: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(jws))));
}

/**
 * The compact JWSs of a receipts file, in order: what GET /org/v1/requests/{requestId}/receipts
 * answers and the pages download, `{ issuer, requestId, receipts }`, its receipts as objects with a
 * `jws` member or as plain JWS strings. Throws a TypeError naming what else it was given.
 */
export function receiptsOf(file: unknown): string[] {
  const expected = 'a receipts file is a JSON object with a "receipts" list (docs/receipts.md)';
  if (typeof file !== 'object' || file === null || Array.isArray(file)) throw new TypeError(`${expected}; this is ${kindOf(file)}`);
  const list = (file as { receipts?: unknown }).receipts;
  if (!Array.isArray(list)) throw new TypeError(`${expected}; its "receipts" is ${kindOf(list)}`);
  return list.map((item: unknown, i) => {
    if (typeof item === 'string') return item;
    const jws = typeof item === 'object' && item !== null ? (item as { jws?: unknown }).jws : undefined;
    if (typeof jws === 'string') return jws;
    throw new TypeError(`receipts[${i}] is neither a compact JWS nor an object with a "jws" string; it is ${kindOf(item)}`);
  });
}

type Candidate = { readonly kid: string; readonly jwk: JWK };

/** The keys by kid; a set that is not one is the caller's mistake, not a receipt's. */
function keySet(jwks: ReceiptKeys): readonly Candidate[] {
  const keys: unknown = typeof jwks === 'object' && jwks !== null ? jwks.keys : undefined;
  if (!Array.isArray(keys))
    throw new TypeError('jwks must be a JWK Set: an object with a "keys" list (the service\'s /.well-known/jwks.json)');
  return (keys as readonly unknown[]).flatMap((key) => {
    const jwk = typeof key === 'object' && key !== null ? (key as JWK) : undefined;
    return typeof jwk?.kid === 'string' ? [{ kid: jwk.kid, jwk }] : [];
  });
}

type Checked = { readonly payload: ReceiptPayload } | { readonly reason: ReceiptFailure; readonly what: string };

/**
 * Rule 1: the header a receipt has, a key of the set by its kid, the signature (jose's); then a
 * payload with the fields the chain needs.
 */
async function signed(jws: unknown, keys: readonly Candidate[]): Promise<Checked> {
  if (typeof jws !== 'string' || jws.split('.').length !== 3) return { reason: 'not_a_receipt', what: 'it is not a compact JWS' };
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jws);
  } catch {
    return { reason: 'not_a_receipt', what: 'its header is not base64url JSON' };
  }
  if (typeof header.typ !== 'string' || header.typ.toLowerCase().replace(/^application\//, '') !== RECEIPT_TYP)
    return { reason: 'not_a_receipt', what: `its typ is ${JSON.stringify(header.typ ?? null)}, not "${RECEIPT_TYP}"` };
  if (typeof header.alg !== 'string' || !ALGORITHMS.includes(header.alg))
    return { reason: 'not_a_receipt', what: `its alg is ${JSON.stringify(header.alg ?? null)}, not EdDSA` };
  const kid = header.kid;
  if (typeof kid !== 'string' || kid === '') return { reason: 'not_a_receipt', what: 'its header names no kid' };
  const named = keys.filter((key) => key.kid === kid);
  if (named.length === 0) return { reason: 'unknown_key', what: `its key ${JSON.stringify(kid)} is not in the key set` };
  const usable = named.filter(
    ({ jwk }) => jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string' && (jwk.use ?? 'sig') === 'sig',
  );
  if (usable.length === 0) return { reason: 'unknown_key', what: `the key set's ${JSON.stringify(kid)} is not an Ed25519 signing key` };
  let verified: Uint8Array | undefined;
  for (const { jwk } of usable) {
    let key: CryptoKey | Uint8Array;
    try {
      // The public half only: a saved set that holds a private `d` must not make it a signing key.
      key = await importJWK({ kty: 'OKP', crv: 'Ed25519', x: jwk.x }, header.alg);
    } catch {
      continue;
    }
    try {
      verified = (await compactVerify(jws, key, { algorithms: ALGORITHMS })).payload;
      break;
    } catch (error) {
      if (error instanceof errors.JWSSignatureVerificationFailed) continue;
      if (error instanceof errors.JOSEError) return { reason: 'not_a_receipt', what: `it is not a valid JWS (${error.message})` };
      throw error;
    }
  }
  if (verified === undefined) return { reason: 'signature', what: `its signature does not verify with key ${JSON.stringify(kid)}` };
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(verified));
  } catch {
    return { reason: 'not_a_receipt', what: 'its payload is not JSON' };
  }
  const missing = missingField(payload);
  if (missing) return { reason: 'not_a_receipt', what: `its payload has no ${missing}` };
  return { payload: payload as ReceiptPayload };
}

/** The first field the chain needs that a payload lacks, or has of another type. */
function missingField(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 'fields (it is not an object)';
  const p = payload as Record<string, unknown>;
  if (typeof p.iss !== 'string') return 'iss';
  if (typeof p.request !== 'string') return 'request';
  if (typeof p.seq !== 'number' || !Number.isSafeInteger(p.seq)) return 'seq (an integer)';
  if (p.prev !== null && typeof p.prev !== 'string') return 'prev (a string, or null)';
  return undefined;
}

/** The seq a receipt claims, unverified: to name one whose signature or key failed. */
function claimedSeq(jws: unknown): number | null {
  if (typeof jws !== 'string') return null;
  try {
    const payload = JSON.parse(new TextDecoder().decode(base64url.decode(jws.split('.')[1] ?? ''))) as { seq?: unknown };
    return typeof payload.seq === 'number' && Number.isSafeInteger(payload.seq) ? payload.seq : null;
  } catch {
    return null;
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return value === undefined ? 'missing' : `a ${typeof value}`;
}
