import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mainBackend } from '../support/databases.js';
import { sdkScenario, untilFeedHas, type SdkScenario } from './support/sdk-scenario.js';

const CHILD = new URL('./support/sync-child.ts', import.meta.url).pathname;

type Run = { readonly signal: NodeJS.Signals | null; readonly code: number | null; readonly out: string; readonly err: string };

/** Runs one sync in its own process against the state file, dying at step `dieAt` (0: never). */
function run(s: SdkScenario, state: string, dieAt: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=development', '--import', 'tsx', CHILD, s.service.url, s.memberToken, state, String(dieAt)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, out, err }));
  });
}

/** The data the stored view holds for the request's one slot. */
async function viewed(state: string, requestId: string): Promise<unknown> {
  const stored = JSON.parse(await readFile(state, 'utf8')) as { view: Record<string, { held: Array<{ data: unknown }> }> };
  return stored.view[requestId]?.held[0]?.data;
}

/** A small seeded generator (mulberry32): a failing run is replayed with SYNC_CRASH_SEED. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe(`the SDK's sync() killed at random points and resumed keeps every version exactly once (docs/sdk.md; ${mainBackend})`, function () {
  this.timeout(600_000);
  let s: SdkScenario;
  let dir: string;

  before(async () => {
    s = await sdkScenario();
    dir = await mkdtemp(join(tmpdir(), 'dss-sync-crash-'));
  });
  after(async () => {
    await s?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('20 runs, each SIGKILLed at a random step (an answer received, either side of a save) and resumed, keep each published version once, and the view is what both sides did last', async () => {
    const seed = Number(process.env.SYNC_CRASH_SEED ?? Date.now() % 1_000_000);
    const next = random(seed);
    const state = join(dir, 'sync.json');
    const first = await run(s, state, 0);
    expect(first.code, first.err).to.equal(0);
    let steps = (JSON.parse(first.out) as { steps: number }).steps;
    const published = [1];
    const killedAt: number[] = [];

    for (let round = 1; killedAt.length < 20; round++) {
      expect(round, `seed ${seed}: too few runs died before finishing`).to.be.below(60);
      const data = { givenName: `Ann ${round}`, familyName: 'Example' };
      published.push(await s.publish(data));
      // A run after a publish takes about as many steps as the last whole one: die somewhere in it.
      const dieAt = 1 + Math.floor(next() * steps);
      const killed = await run(s, state, dieAt);
      if (killed.signal === 'SIGKILL') killedAt.push(dieAt);
      else expect(killed.code, `seed ${seed}: ${killed.err}`).to.equal(0);
      const resumed = await run(s, state, 0);
      expect(resumed.code, `seed ${seed}, died at ${dieAt}: ${resumed.err}`).to.equal(0);
      steps = Math.max(steps, (JSON.parse(resumed.out) as { steps: number }).steps);

      const kept = (await s.organization.request(s.requestId)).adoptions.map((a) => a.sourceVersion).sort((a, b) => a - b);
      expect(kept, `seed ${seed}, round ${round}, died at step ${dieAt}: each version kept once`).to.deep.equal(published);
      expect(await viewed(state, s.requestId), `seed ${seed}, round ${round}: the person's version in the view`).to.deep.equal(data);
      if (round % 4 === 0) {
        // The organization corrects what it holds; the next run reads the correction into the view.
        const copy = (await s.organization.copies(s.requestId)).find((c) => c.adoption.sourceVersion === published.at(-1))!;
        const corrected = { givenName: `Ann ${round}`, familyName: 'Corrected' };
        const { orgVersion } = await s.organization.correct(s.requestId, s.slotId, {
          sourceResourceId: s.documentId,
          expectedSourceVersion: copy.adoption.sourceVersion,
          expectedOrgVersion: copy.currentOrgVersion,
          data: corrected,
        });
        await untilFeedHas(s.organization, (e) => e.type === 'copy.corrected' && e.versions?.orgVersion === orgVersion);
        expect((await run(s, state, 0)).code).to.equal(0);
        expect(await viewed(state, s.requestId), `seed ${seed}, round ${round}: the correction in the view`).to.deep.equal(corrected);
      }
    }
    expect(killedAt).to.have.length(20);
  });
});
