import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { isAnyRefusal } from '../../src/commands/refusal.js';
import { sealUpload, type UploadBody } from '../../src/files/sealed-upload.js';
import { open, sealStream } from '../../src/vaults/envelope-crypto.js';

const key = randomBytes(32);

async function* chunks(...parts: Buffer[]) {
  yield* parts;
}

const body = (parts: Buffer[], declaredBytes: number | null = null): UploadBody => ({ declaredBytes, chunks: chunks(...parts) });

describe('sealed uploads (contract 6: streamed, size-limited, encrypted at rest)', () => {
  it('seals chunk by chunk into the layout open() reads, bound to its associated data', async () => {
    const parts = [randomBytes(1000), randomBytes(1), Buffer.alloc(0), randomBytes(70_000)];
    const sealed = await sealUpload(body(parts), sealStream(key, 'vault:file/v1'), 100_000);
    if (isAnyRefusal(sealed)) expect.fail(sealed.message);
    expect(sealed.size).to.equal(71_001);
    expect(open(key, sealed.sealed, 'vault:file/v1').equals(Buffer.concat(parts))).to.equal(true);
    expect(() => open(key, sealed.sealed, 'vault:file/v2')).to.throw();
  });

  it('an empty stream seals to an empty file', async () => {
    const sealed = await sealUpload(body([]), sealStream(key, 'a'), 10);
    if (isAnyRefusal(sealed)) expect.fail(sealed.message);
    expect(open(key, sealed.sealed, 'a').length).to.equal(0);
  });

  it('stops at the first byte over the limit without reading further', async () => {
    let read = 0;
    async function* endless() {
      for (;;) {
        read += 1;
        yield Buffer.alloc(10);
      }
    }
    const refused = await sealUpload({ declaredBytes: null, chunks: endless() }, sealStream(key, 'a'), 25);
    expect(isAnyRefusal(refused) && refused.code).to.equal('payload_too_large');
    expect(read).to.equal(3);
    const atLimit = await sealUpload(body([Buffer.alloc(25)]), sealStream(key, 'a'), 25);
    expect(isAnyRefusal(atLimit)).to.equal(false);
  });

  it('a declared length over the limit is refused before a byte is read', async () => {
    let touched = false;
    async function* watched() {
      touched = true;
      yield Buffer.alloc(1);
    }
    const refused = await sealUpload({ declaredBytes: 26, chunks: watched() }, sealStream(key, 'a'), 25);
    expect(isAnyRefusal(refused) && refused.code).to.equal('payload_too_large');
    expect(touched).to.equal(false);
  });

  it('a body cut off mid-stream is invalid_request', async () => {
    async function* broken() {
      yield Buffer.alloc(1);
      throw new Error('aborted');
    }
    const refused = await sealUpload({ declaredBytes: null, chunks: broken() }, sealStream(key, 'a'), 25);
    expect(isAnyRefusal(refused) && refused.code).to.equal('invalid_request');
  });
});
