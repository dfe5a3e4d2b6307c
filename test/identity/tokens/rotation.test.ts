import { expect } from 'chai';
import { decodeProtectedHeader } from 'jose';
import { generatePrivateJwk, rotateJwkSet, serializeJwkSet } from '../../../src/identity/keys/index.js';
import { refusedWith, serviceKeys, session } from './forge.js';

describe('key rotation (contract §1: the first key signs, all verify)', () => {
  it('an old token verifies after rotation, new tokens carry the new kid, and old tokens fail once the old key is dropped', async () => {
    const old = await generatePrivateJwk();
    const before = await serviceKeys([old]);
    const oldToken = await before.issuer.userToken(session);

    const rotated = await rotateJwkSet(serializeJwkSet([old]));
    expect(rotated.map((key) => key.kid).slice(1)).to.deep.equal([old.kid]);
    const [fresh] = rotated;
    if (!fresh) expect.fail('rotation made no key');
    expect(fresh.kid).to.not.equal(old.kid);

    const after = await serviceKeys(rotated);
    expect((await after.verifier.verify(oldToken, 'user')).ok).to.equal(true);
    const newToken = await after.issuer.userToken(session);
    expect(decodeProtectedHeader(newToken).kid).to.equal(fresh.kid);
    expect(after.keys.jwks.keys.map((key) => key.kid)).to.deep.equal([fresh.kid, old.kid]);

    const dropped = await serviceKeys([fresh]);
    refusedWith(await dropped.verifier.verify(oldToken, 'user'), 'unknown_kid');
    expect((await dropped.verifier.verify(newToken, 'user')).ok).to.equal(true);
  });
});
