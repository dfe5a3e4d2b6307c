import { expect } from 'chai';
import fc from 'fast-check';
import { CompactSign, exportJWK, generateKeyPair, type JWK } from 'jose';
import { createHash, randomUUID } from 'node:crypto';
import { receiptsOf, verifyReceipts, type ReceiptPayload, type ReceiptsVerdict } from '@dss/sdk';

const ISSUER = 'https://share.example.com';
const TYP = 'consent-receipt+jwt';

/** A receipt key: its private half signs, its public half (with its kid) goes in the JWKS. */
type Signer = { readonly kid: string; readonly privateKey: CryptoKey; readonly jwk: JWK };

async function signer(kid: string): Promise<Signer> {
  const { publicKey, privateKey } = await generateKeyPair('Ed25519');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' } };
}

const jwksOf = (...signers: readonly Signer[]) => ({ keys: signers.map((s) => s.jwk) });

/** The prev of the receipt after `jws`, computed here with node:crypto, apart from the code under test. */
const digest = (jws: string): string => createHash('sha256').update(jws, 'ascii').digest('base64url');

const EVENTS = ['RequestAccepted', 'SlotGranted', 'SlotWithdrawn', 'RequestSuspended', 'RequestResumed', 'SlotGranted'] as const;

/** A payload as docs/receipts.md shows one. */
function payloadOf(request: string, seq: number, prev: string | null, purpose = 'To open your account'): ReceiptPayload {
  const type = EVENTS[(seq - 1) % EVENTS.length]!;
  return {
    iss: ISSUER,
    jti: randomUUID(),
    iat: 1764403200 + seq * 60,
    request,
    seq,
    prev,
    event: { id: randomUUID(), type, at: new Date((1764403200 + seq * 60) * 1000).toISOString() },
    status:
      type === 'RequestSuspended' ? 'dss:ConsentSuspended' : type === 'RequestResumed' ? 'dpv:RenewedConsentGiven' : 'dpv:ConsentGiven',
    controller: { id: '2c1b0a9f-1111-4222-8333-444455556666', name: 'Acme Bank' },
    purpose,
    retention: 'P90D',
    manifest: { id: '7e6d5c4b-1111-4222-8333-444455556666', version: 2 },
    initiatedBy: 'org',
    app: null,
    slots: [
      { id: 'name', label: 'Your legal name', status: 'dpv:ConsentGiven', records: [digest(randomUUID())] },
      {
        id: 'address',
        label: 'Your address',
        status: type === 'SlotWithdrawn' ? 'dpv:ConsentWithdrawn' : 'dpv:ConsentRequested',
        records: [],
      },
    ],
  };
}

function sign(payload: unknown, by: Signer, header: Record<string, unknown> = {}): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'EdDSA', typ: TYP, kid: by.kid, ...header })
    .sign(by.privateKey);
}

type ChainOptions = {
  readonly request?: string;
  /** Which key signs the receipt at a position (from 0). */
  readonly by: (index: number) => Signer;
  readonly purpose?: (index: number) => string;
  /** A payload changed before it is signed: what a faulty or dishonest issuer would sign. */
  readonly alter?: (index: number, payload: ReceiptPayload, chain: readonly string[]) => ReceiptPayload;
};

/** n receipts of one request, each signed, each naming the digest of the one before. */
async function chain(n: number, options: ChainOptions): Promise<string[]> {
  const request = options.request ?? randomUUID();
  const receipts: string[] = [];
  for (let i = 0; i < n; i++) {
    const prev = i === 0 ? null : digest(receipts[i - 1]!);
    let payload = payloadOf(request, i + 1, prev, options.purpose?.(i));
    if (options.alter) payload = options.alter(i, payload, receipts);
    receipts.push(await sign(payload, options.by(i)));
  }
  return receipts;
}

const decode = (part: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

/** The receipt's payload changed and encoded again, its header and signature kept: no key signed this. */
function editPayload(jws: string): string {
  const [header, payload, signature] = jws.split('.') as [string, string, string];
  const edited = { ...decode(payload), purpose: `${String(decode(payload).purpose)}, and to market to you` };
  return [header, Buffer.from(JSON.stringify(edited)).toString('base64url'), signature].join('.');
}

/** One character in the middle of the signature changed (the last one may carry only padding bits). */
function editSignature(jws: string): string {
  const [header, payload, signature] = jws.split('.') as [string, string, string];
  const at = 20;
  const changed = signature[at] === 'A' ? 'B' : 'A';
  return [header, payload, signature.slice(0, at) + changed + signature.slice(at + 1)].join('.');
}

const removed = (list: readonly string[], k: number): string[] => list.filter((_, i) => i !== k);
function swapped(list: readonly string[], k: number): string[] {
  const copy = [...list];
  [copy[k], copy[k + 1]] = [copy[k + 1]!, copy[k]!];
  return copy;
}
const replaced = (list: readonly string[], k: number, jws: string): string[] => list.map((r, i) => (i === k ? jws : r));

/** The failure a verdict must be, for chai to print the verdict whole when it is not. */
function failed(verdict: ReceiptsVerdict): Extract<ReceiptsVerdict, { ok: false }> {
  expect(verdict.ok, JSON.stringify(verdict)).to.equal(false);
  return verdict as Extract<ReceiptsVerdict, { ok: false }>;
}

describe('verifyReceipts: a request’s signed consent receipts checked offline (docs/receipts.md, Verifying)', function () {
  this.timeout(60_000);
  let a: Signer;
  let b: Signer;
  let stranger: Signer;
  let five: string[];

  before(async () => {
    [a, b, stranger] = await Promise.all([signer('receipts-2026-01'), signer('receipts-2026-07'), signer('not-the-service')]);
    five = await chain(5, { by: () => a });
  });

  it('a chain of 5 receipts verifies, and its payloads come back in order as signed', async () => {
    const verdict = await verifyReceipts(five, jwksOf(a));
    expect(verdict.ok, JSON.stringify(verdict)).to.equal(true);
    if (!verdict.ok) return;
    expect(verdict.count).to.equal(5);
    expect(verdict.payloads.map((p) => p.seq)).to.deep.equal([1, 2, 3, 4, 5]);
    expect(verdict.payloads).to.deep.equal(five.map((jws) => decode(jws.split('.')[1]!)));
    expect(verdict.payloads[0]!.prev).to.equal(null);
    expect(verdict.payloads[3]!.prev).to.equal(digest(five[2]!));
  });

  it('an empty list verifies, with count 0', async () => {
    expect(await verifyReceipts([], jwksOf(a))).to.deep.equal({ ok: true, count: 0, payloads: [] });
    expect(await verifyReceipts([], { keys: [] })).to.deep.equal({ ok: true, count: 0, payloads: [] });
  });

  it('a receipt whose payload was edited (re-encoded, not re-signed) fails its own signature, at its index', async () => {
    for (let k = 0; k < five.length; k++) {
      const verdict = failed(await verifyReceipts(replaced(five, k, editPayload(five[k]!)), jwksOf(a)));
      expect(verdict, `edited at ${k}`).to.include({ index: k, seq: k + 1, reason: 'signature' });
      expect(verdict.message).to.equal(`receipt ${k + 1} (seq ${k + 1}): its signature does not verify with key "${a.kid}"`);
    }
  });

  it('a receipt whose signature was edited fails its signature, at its index', async () => {
    for (let k = 0; k < five.length; k++) {
      const verdict = failed(await verifyReceipts(replaced(five, k, editSignature(five[k]!)), jwksOf(a)));
      expect(verdict, `edited at ${k}`).to.include({ index: k, reason: 'signature' });
    }
  });

  it('a removed receipt breaks the chain at the one that now follows the gap (its index is the removed one’s)', async () => {
    for (let k = 0; k < five.length - 1; k++) {
      const verdict = failed(await verifyReceipts(removed(five, k), jwksOf(a)));
      expect(verdict.index, `removed ${k}`).to.equal(k);
      expect(verdict.seq).to.equal(k + 2);
      expect(verdict.reason).to.be.oneOf(['sequence', 'chain']);
    }
  });

  it('a list cut short at its end still verifies: nothing in a receipt names the one after it', async () => {
    const verdict = await verifyReceipts(five.slice(0, 4), jwksOf(a));
    expect(verdict).to.include({ ok: true, count: 4 });
  });

  it('two receipts swapped are found at the first of the two', async () => {
    for (let k = 0; k < five.length - 1; k++) {
      const verdict = failed(await verifyReceipts(swapped(five, k), jwksOf(a)));
      expect(verdict.index, `swapped ${k} and ${k + 1}`).to.equal(k);
      expect(verdict.reason).to.be.oneOf(['sequence', 'chain']);
    }
  });

  it('a receipt signed with a key the JWKS does not hold is unknown_key; one signed by another key under a known kid fails its signature', async () => {
    const alien = await chain(5, { by: (i) => (i === 2 ? stranger : a) });
    const unknown = failed(await verifyReceipts(alien, jwksOf(a)));
    expect(unknown).to.include({ index: 2, seq: 3, reason: 'unknown_key' });
    expect(unknown.message).to.equal('receipt 3 (seq 3): its key "not-the-service" is not in the key set');

    const impostor = { ...stranger, kid: a.kid };
    const forged = failed(await verifyReceipts(await chain(5, { by: (i) => (i === 2 ? impostor : a) }), jwksOf(a)));
    expect(forged).to.include({ index: 2, reason: 'signature' });
  });

  it('a key under the right kid that is not an Ed25519 signing key is unknown_key', async () => {
    const ec = { ...(await exportJWK((await generateKeyPair('ES256')).publicKey)), kid: a.kid };
    expect(failed(await verifyReceipts(five, { keys: [ec] }))).to.include({ index: 0, reason: 'unknown_key' });
    expect(failed(await verifyReceipts(five, { keys: [{ ...a.jwk, use: 'enc' }] }))).to.include({ index: 0, reason: 'unknown_key' });
  });

  it('a JWS whose header typ is something else, or whose alg is not EdDSA, or that is no JWS at all, is not_a_receipt', async () => {
    const token = await sign(payloadOf(randomUUID(), 4, digest(five[2]!)), a, { typ: 'JWT' });
    const asJwt = failed(await verifyReceipts(replaced(five, 3, token), jwksOf(a)));
    expect(asJwt).to.include({ index: 3, reason: 'not_a_receipt' });
    expect(asJwt.message).to.equal('receipt 4 (seq 4): its typ is "JWT", not "consent-receipt+jwt"');

    const untyped = await sign(payloadOf(randomUUID(), 1, null), a, { typ: undefined });
    expect(failed(await verifyReceipts([untyped], jwksOf(a)))).to.include({ index: 0, reason: 'not_a_receipt' });

    const es = await generateKeyPair('ES256');
    const es256 = await new CompactSign(new TextEncoder().encode(JSON.stringify(payloadOf(randomUUID(), 1, null))))
      .setProtectedHeader({ alg: 'ES256', typ: TYP, kid: a.kid })
      .sign(es.privateKey);
    expect(failed(await verifyReceipts([es256], jwksOf(a)))).to.include({ index: 0, reason: 'not_a_receipt' });

    const noKid = await sign(payloadOf(randomUUID(), 1, null), a, { kid: undefined });
    expect(failed(await verifyReceipts([noKid], jwksOf(a)))).to.include({ index: 0, reason: 'not_a_receipt' });

    for (const junk of ['', 'not a jws', 'a.b.c', `${five[1]!}.extra.parts`]) {
      const verdict = failed(await verifyReceipts(replaced(five, 1, junk), jwksOf(a)));
      expect(verdict, JSON.stringify(junk)).to.include({ index: 1, reason: 'not_a_receipt' });
    }
  });

  it('a signed receipt whose payload lacks the chain’s fields is not_a_receipt', async () => {
    const { seq: _seq, ...noSeq } = payloadOf(randomUUID(), 1, null);
    expect(failed(await verifyReceipts([await sign(noSeq, a)], jwksOf(a)))).to.include({ index: 0, seq: null, reason: 'not_a_receipt' });
    const notJson = await new CompactSign(new TextEncoder().encode('not json'))
      .setProtectedHeader({ alg: 'EdDSA', typ: TYP, kid: a.kid })
      .sign(a.privateKey);
    expect(failed(await verifyReceipts([notJson], jwksOf(a)))).to.include({ index: 0, reason: 'not_a_receipt' });
  });

  it('alg "Ed25519" (RFC 9864’s name) verifies as EdDSA does', async () => {
    const receipts = await Promise.all([sign(payloadOf(randomUUID(), 1, null), a, { alg: 'Ed25519' })]);
    expect(await verifyReceipts(receipts, jwksOf(a))).to.include({ ok: true, count: 1 });
  });

  it('a receipt of another request spliced in is found at its index with reason request', async () => {
    const other = await chain(5, { by: () => a });
    for (let k = 1; k < five.length; k++) {
      const verdict = failed(await verifyReceipts(replaced(five, k, other[k]!), jwksOf(a)));
      expect(verdict, `spliced at ${k}`).to.include({ index: k, reason: 'request' });
    }
    // The first receipt names the request the others must be of: another first one makes the second fail.
    expect(failed(await verifyReceipts(replaced(five, 0, other[0]!), jwksOf(a)))).to.include({ index: 1, reason: 'request' });
  });

  it('a receipt of another issuer is found with reason issuer; and the expected issuer and request are checked on the first', async () => {
    const request = randomUUID();
    const mixed = await chain(3, { request, by: () => a, alter: (i, p) => (i === 2 ? { ...p, iss: 'https://elsewhere.example' } : p) });
    expect(failed(await verifyReceipts(mixed, jwksOf(a)))).to.include({ index: 2, reason: 'issuer' });

    const mine = await chain(3, { request, by: () => a });
    expect(await verifyReceipts(mine, jwksOf(a), { issuer: ISSUER, request })).to.include({ ok: true, count: 3 });
    expect(failed(await verifyReceipts(mine, jwksOf(a), { issuer: 'https://elsewhere.example' }))).to.include({
      index: 0,
      reason: 'issuer',
    });
    expect(failed(await verifyReceipts(mine, jwksOf(a), { request: randomUUID() }))).to.include({ index: 0, reason: 'request' });
  });

  it('receipts the issuer signed with a broken chain fail there: a wrong prev is chain, a skipped seq is sequence, a first one not at 1 or with a prev too', async () => {
    const skipPrev = await chain(5, { by: () => a, alter: (i, p, c) => (i === 2 ? { ...p, prev: digest(c[0]!) } : p) });
    const chainBroken = failed(await verifyReceipts(skipPrev, jwksOf(a)));
    expect(chainBroken).to.deep.equal({
      ok: false,
      index: 2,
      seq: 3,
      reason: 'chain',
      message: 'receipt 3 (seq 3): its prev is not the digest of receipt 2',
    });

    const hexPrev = await chain(3, {
      by: () => a,
      alter: (i, p, c) => (i === 1 ? { ...p, prev: createHash('sha256').update(c[0]!).digest('hex') } : p),
    });
    expect(failed(await verifyReceipts(hexPrev, jwksOf(a)))).to.include({ index: 1, reason: 'chain' });

    const gap = await chain(4, { by: () => a, alter: (i, p) => (i >= 2 ? { ...p, seq: p.seq + 1 } : p) });
    expect(failed(await verifyReceipts(gap, jwksOf(a)))).to.include({ index: 2, seq: 4, reason: 'sequence' });

    const zero = await chain(2, { by: () => a, alter: (i, p) => (i === 0 ? { ...p, seq: 0 } : p) });
    expect(failed(await verifyReceipts(zero, jwksOf(a)))).to.include({ index: 0, reason: 'sequence' });

    const prevFirst = await chain(2, { by: () => a, alter: (i, p) => (i === 0 ? { ...p, prev: digest('x') } : p) });
    expect(failed(await verifyReceipts(prevFirst, jwksOf(a)))).to.include({ index: 0, reason: 'chain' });
  });

  it('key rotation: receipts 1–3 signed with key A and 4–5 with key B verify against a JWKS holding both, and not against B’s or A’s alone', async () => {
    const rotated = await chain(5, { by: (i) => (i < 3 ? a : b) });
    expect(await verifyReceipts(rotated, jwksOf(a, b))).to.include({ ok: true, count: 5 });
    expect(await verifyReceipts(rotated, jwksOf(b, a))).to.include({ ok: true, count: 5 });
    expect(failed(await verifyReceipts(rotated, jwksOf(b)))).to.include({ index: 0, reason: 'unknown_key' });
    expect(failed(await verifyReceipts(rotated, jwksOf(a)))).to.include({ index: 3, reason: 'unknown_key' });
  });

  it('a JWKS that holds the private half too verifies with the public half only', async () => {
    const { privateKey } = await generateKeyPair('Ed25519', { extractable: true });
    const kid = 'with-private';
    const full = { ...(await exportJWK(privateKey)), kid };
    expect(full).to.have.property('d');
    const receipts = await chain(2, { by: () => ({ kid, privateKey, jwk: full }) });
    expect(await verifyReceipts(receipts, { keys: [full] })).to.include({ ok: true, count: 2 });
  });

  it('a JWKS that is not one is the caller’s error (TypeError), not a receipt’s', async () => {
    let thrown: unknown;
    try {
      await verifyReceipts(five, {} as { keys: JWK[] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(TypeError);
  });

  it('property: for a random chain and a random single mutation (edit, remove, swap), verification fails at the mutated position', async () => {
    const mutation = (n: number) =>
      fc.oneof(
        fc.record({ kind: fc.constant('edit-payload' as const), k: fc.integer({ min: 0, max: n - 1 }) }),
        fc.record({ kind: fc.constant('edit-signature' as const), k: fc.integer({ min: 0, max: n - 1 }) }),
        fc.record({ kind: fc.constant('remove' as const), k: fc.integer({ min: 0, max: n - 2 }) }),
        fc.record({ kind: fc.constant('swap' as const), k: fc.integer({ min: 0, max: n - 2 }) }),
      );
    const scenario = fc
      .integer({ min: 2, max: 8 })
      .chain((n) =>
        fc.record({ n: fc.constant(n), purposes: fc.array(fc.string(), { minLength: n, maxLength: n }), mutation: mutation(n) }),
      );
    await fc.assert(
      fc.asyncProperty(scenario, async ({ n, purposes, mutation: { kind, k } }) => {
        const receipts = await chain(n, { by: () => a, purpose: (i) => purposes[i]! });
        const original = await verifyReceipts(receipts, jwksOf(a));
        expect(original).to.include({ ok: true, count: n });
        const mutated =
          kind === 'edit-payload'
            ? replaced(receipts, k, editPayload(receipts[k]!))
            : kind === 'edit-signature'
              ? replaced(receipts, k, editSignature(receipts[k]!))
              : kind === 'remove'
                ? removed(receipts, k)
                : swapped(receipts, k);
        const verdict = failed(await verifyReceipts(mutated, jwksOf(a)));
        expect(verdict.index).to.equal(k);
        expect(verdict.reason).to.be.oneOf(kind.startsWith('edit') ? ['signature'] : ['sequence', 'chain']);
      }),
      { numRuns: 150 },
    );
  });
});

describe('receiptsOf: the receipts file format (docs/receipts.md)', () => {
  it('takes the receipts of a file as objects with a jws member, or as plain strings, in order', () => {
    const file = {
      issuer: ISSUER,
      requestId: 'r',
      receipts: [{ seq: 1, receiptId: 'x', issuedAt: 'now', event: 'RequestAccepted', status: 'dpv:ConsentGiven', jws: 'a.b.c' }, 'd.e.f'],
    };
    expect(receiptsOf(file)).to.deep.equal(['a.b.c', 'd.e.f']);
    expect(receiptsOf({ receipts: ['a.b.c'] })).to.deep.equal(['a.b.c']);
    expect(receiptsOf({ receipts: [] })).to.deep.equal([]);
  });

  it('refuses anything else with a TypeError saying what it is', () => {
    const refusals: [unknown, RegExp][] = [
      [['a.b.c'], /a JSON object with a "receipts" list .*; this is a list/],
      [null, /this is null/],
      ['a.b.c', /this is a string/],
      [{}, /its "receipts" is missing/],
      [{ receipts: 'a.b.c' }, /its "receipts" is a string/],
      [{ receipts: ['a.b.c', 42] }, /receipts\[1\] is neither a compact JWS nor an object with a "jws" string; it is a number/],
      [{ receipts: [{ seq: 1 }] }, /receipts\[0\] is neither/],
      [{ receipts: [{ jws: null }] }, /receipts\[0\] is neither/],
    ];
    for (const [file, message] of refusals) expect(() => receiptsOf(file), JSON.stringify(file)).to.throw(TypeError, message);
  });
});
