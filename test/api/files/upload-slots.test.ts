import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient } from '../org/org-client.js';
import { startTestService, type TestService } from '../support/service.js';
import { fileClient } from './file-client.js';

/** A body that sends `head`, then waits until `finish()` before sending `tail` and closing. */
function heldBody(head: Buffer, tail: Buffer): { stream: ReadableStream<Uint8Array>; finish: () => void } {
  let finish!: () => void;
  const gate = new Promise<void>((r) => {
    finish = r;
  });
  let step = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (step === 0) controller.enqueue(head);
      else if (step === 1) {
        await gate;
        controller.enqueue(tail);
      } else controller.close();
      step++;
    },
  });
  return { stream, finish };
}

describe(`concurrent uploads are capped per user and per instance (MAX_UPLOADS_PER_USER, MAX_UPLOADS_TOTAL; ${mainBackend})`, function () {
  this.timeout(60_000);
  let service: TestService;
  const mailer = new RecordingMailer();

  before(async () => {
    service = await startTestService({ domain: { mailer, env: { MAX_UPLOADS_PER_USER: '1', MAX_UPLOADS_TOTAL: '2' } } });
  });
  after(() => service.close());

  const registered = async (): Promise<string> => (await orgClient(service.url, mailer).user()).token;

  /** Waits until the service streams `count` uploads: only then do the held ones hold their slots. */
  async function untilInFlight(count: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const gauge = await service.metrics.uploadsInFlight.get();
      if (gauge.values[0]?.value === count) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`uploads in flight never reached ${count}`);
  }

  it("a user's second upload while one streams is 429 with Retry-After; another user still uploads; the first completes intact", async () => {
    const files = fileClient(service.url);
    const [ann, bob] = [await registered(), await registered()];
    const held = heldBody(Buffer.alloc(1000, 1), Buffer.alloc(1000, 2));
    const first = files.upload(ann, { fileName: 'big.bin' }, held.stream);
    await untilInFlight(1);

    const refused = await files.upload(ann, { fileName: 'probe.bin' }, Buffer.from('probe'));
    expect(refused.status).to.equal(429);
    expect(refused.json.code).to.equal('rate_limited');
    expect(refused.headers.get('retry-after')).to.equal('1');

    const bobs = await files.upload(bob, { fileName: 'b.bin' }, Buffer.from('bob'));
    expect(bobs.status).to.equal(201);

    held.finish();
    const done = await first;
    expect(done.status).to.equal(201);
    const bytes = (await files.download(ann, done.json.fileId as string)).bytes;
    expect(bytes.equals(Buffer.concat([Buffer.alloc(1000, 1), Buffer.alloc(1000, 2)]))).to.equal(true);

    // The slot is free again once the answer went out.
    expect((await files.upload(ann, { fileName: 'again.bin' }, Buffer.from('again'))).status).to.equal(201);
  });

  it('past MAX_UPLOADS_TOTAL uploads in flight, anyone is refused until one ends', async () => {
    const files = fileClient(service.url);
    const [ann, bob, cy] = [await registered(), await registered(), await registered()];
    const a = heldBody(Buffer.from('a'), Buffer.from('A'));
    const b = heldBody(Buffer.from('b'), Buffer.from('B'));
    const uploads = [files.upload(ann, { fileName: 'a' }, a.stream), files.upload(bob, { fileName: 'b' }, b.stream)];
    await untilInFlight(2);
    const refused = await files.upload(cy, { fileName: 'c' }, Buffer.from('c'));
    expect(refused.status).to.equal(429);
    a.finish();
    b.finish();
    expect((await Promise.all(uploads)).map((r) => r.status)).to.deep.equal([201, 201]);
    expect((await files.upload(cy, { fileName: 'c' }, Buffer.from('c'))).status).to.equal(201);
    await untilInFlight(0);
  });
});
