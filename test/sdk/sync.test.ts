import { expect } from 'chai';
import { memoryStore, Organization, sync, type Held } from '@dss/sdk';
import { mainBackend } from '../support/databases.js';
import { sdkScenario, untilFeedHas, type SdkScenario } from './support/sdk-scenario.js';

/** The organization's client, counting the writes it sends. */
function counting(s: SdkScenario) {
  const writes: string[] = [];
  const organization = new Organization({
    baseUrl: s.service.url,
    token: s.memberToken,
    fetch: (request) => {
      if (request.method !== 'GET') writes.push(`${request.method} ${new URL(request.url).pathname}`);
      return fetch(request);
    },
  });
  return { organization, writes };
}

const heldOf = (view: Awaited<ReturnType<typeof sync>>['view'], requestId: string): Held => view[requestId]!.held[0]!;

describe(`the SDK's sync(): the spec's sync procedure against a real service (docs/sdk.md; ${mainBackend})`, function () {
  this.timeout(120_000);
  let s: SdkScenario;

  beforeEach(async () => {
    s = await sdkScenario();
  });
  afterEach(async () => {
    await s.close();
  });

  it('keeps what a manual slot holds, reads the copy into the view, and a second run with nothing new sends nothing', async () => {
    const store = memoryStore();
    const first = await sync(s.organization, { store });
    expect(first.kept).to.equal(1);
    expect(heldOf(first.view, s.requestId)).to.include({ slotId: s.slotId, resourceId: s.documentId, sourceVersion: 1, origin: 'copy' });
    expect(heldOf(first.view, s.requestId).data).to.deep.equal({ givenName: 'Ann', familyName: 'Example' });

    const { organization, writes } = counting(s);
    const again = await sync(organization, { store });
    expect({ kept: again.kept, writes }).to.deep.equal({ kept: 0, writes: [] });
    expect(again.view).to.deep.equal(first.view);
  });

  it('while the person keeps publishing and the organization corrects, the final view is the last of what both did', async () => {
    const store = memoryStore();
    await sync(s.organization, { store });
    let expected: unknown = { givenName: 'Ann', familyName: 'Example' };
    for (let round = 1; round <= 6; round++) {
      const data = { givenName: `Ann ${round}`, familyName: 'Example' };
      // The person publishes while the sync runs: whichever comes first, the next run settles it.
      await Promise.all([s.publish(data), sync(s.organization, { store })]);
      expected = data;
      const view = (await sync(s.organization, { store })).view;
      expect(heldOf(view, s.requestId).data, `round ${round}: the person's version`).to.deep.equal(expected);
      if (round % 2 === 0) {
        const held = heldOf(view, s.requestId);
        const corrected = { givenName: `Ann ${round}`, familyName: 'Example-Corrected' };
        const { orgVersion } = await s.organization.correct(s.requestId, s.slotId, {
          sourceResourceId: held.resourceId,
          expectedSourceVersion: held.sourceVersion,
          expectedOrgVersion: held.orgVersion,
          data: corrected,
        });
        expected = corrected;
        // The feed trails the log by a moment (docs/events.md): the next sync learns of the correction from it.
        await untilFeedHas(s.organization, (e) => e.type === 'copy.corrected' && e.versions?.orgVersion === orgVersion);
        const after = heldOf((await sync(s.organization, { store })).view, s.requestId);
        expect({ data: after.data, origin: after.origin }, `round ${round}: the correction`).to.deep.equal({
          data: corrected,
          origin: 'correction',
        });
      }
    }
    expect(heldOf((await sync(s.organization, { store })).view, s.requestId).data).to.deep.equal(expected);
    const kept = (await s.organization.request(s.requestId)).adoptions.map((a) => a.sourceVersion).sort((a, b) => a - b);
    expect(kept, 'every version kept once').to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
  });

  it('a dismissed version is not kept by later runs; a proposal left for later is asked again on the next run', async () => {
    const store = memoryStore();
    await sync(s.organization, { store });
    const v2 = await s.publish({ givenName: 'Anne', familyName: 'Example' });
    const asked: number[] = [];
    const later = await sync(s.organization, { store, decide: ({ proposal }) => (asked.push(proposal.newVersion), 'later') });
    expect({ asked, held: heldOf(later.view, s.requestId).sourceVersion }).to.deep.equal({ asked: [v2], held: 1 });

    const dismissed = await sync(s.organization, {
      store,
      decide: async ({ proposal, current, candidate }) => {
        expect(current?.data, 'the copy in use today').to.deep.equal({ givenName: 'Ann', familyName: 'Example' });
        expect((await candidate()).data, 'the proposed version').to.deep.equal({ givenName: 'Anne', familyName: 'Example' });
        asked.push(proposal.newVersion);
        return 'dismiss' as const;
      },
    });
    expect({ asked, dismissed: dismissed.dismissed }).to.deep.equal({ asked: [v2, v2], dismissed: 1 });
    const next = await sync(s.organization, { store, decide: () => expect.fail('nothing left to decide') });
    expect({ kept: next.kept, held: heldOf(next.view, s.requestId).sourceVersion }).to.deep.equal({ kept: 0, held: 1 });
  });
});
