import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient } from '../org/org-client.js';
import { consentScenario, MANUAL_NAME_SLOT } from '../support/consent-scenario.js';
import { twoInstances, type TwoInstances } from '../support/two-instances.js';

type Adoption = { adoptionId: string; sourceVersion: number; orgVersion: number };

describe(`keeping and correcting copies on two instances of one database (R-KEEP-02, R-CORR-04; ${mainBackend})`, function () {
  this.timeout(120_000);
  let both: TwoInstances;
  const mailer = new RecordingMailer();

  before(async () => {
    both = await twoInstances(mailer);
  });
  after(() => both.close());

  /** A member of one organization, through either instance, with a request of a manual name slot accepted by a person. */
  async function connected() {
    const [viaA, viaB] = [orgClient(both.a.url, mailer), orgClient(both.b.url, mailer)];
    const owner = await viaA.user();
    const member = await viaA.signIn(owner.token, await viaA.organization(owner.token));
    const manifest = await viaA.post('/org/v1/manifests', member, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [MANUAL_NAME_SLOT],
    });
    expect(manifest.status, JSON.stringify(manifest.body)).to.equal(201);
    const { manifestId, slots } = manifest.body.manifest as { manifestId: string; slots: Array<{ slotId: string }> };
    const [onA, onB] = [consentScenario(viaA, () => member), consentScenario(viaB, () => member)];
    const person = await viaA.user();
    const doc = await onA.createDoc(person, 'PersonFullName', { givenName: 'Ann', familyName: 'Example' });
    const requestId = await onA.connected(manifestId, person, { [slots[0]!.slotId]: [doc] });
    return { viaA, viaB, member, onA, onB, person, doc, requestId, slotId: slots[0]!.slotId };
  }
  const count = async (type: string) =>
    (await both.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM es.events WHERE type = $1', [type])).rows[0]!.n;

  it('a keep of a version the other instance kept since this one last kept the chain appends nothing and answers that adoption', async () => {
    const { onA, onB, person, doc, requestId, slotId } = await connected();

    await onA.keep(requestId, slotId); // instance a now holds the chain, version 1 kept
    await onA.updateDoc(person, doc, { givenName: 'Anna', familyName: 'Example' });
    const byB = ((await onB.keep(requestId, slotId)).adoptions as Adoption[])[0]!;
    const kept = await count('CopyKept');

    // a's memory says version 2 is not kept: its append clashes, and the read after it finds b's keep.
    const byA = ((await onA.keep(requestId, slotId)).adoptions as Adoption[])[0]!;
    expect(byA).to.deep.equal(byB);
    expect(byA).to.include({ sourceVersion: 2, orgVersion: 2 });
    expect(await count('CopyKept')).to.equal(kept);
  });

  it("a correction at the head this instance holds, which the other instance's correction moved on, is 409 version_conflict and writes nothing", async () => {
    const { viaA, viaB, member, onA, requestId, slotId } = await connected();
    await onA.keep(requestId, slotId);
    const correct = (via: typeof viaA, expectedOrgVersion: number, givenName: string) =>
      via.post(`/org/v1/requests/${requestId}/slots/${slotId}/correct`, member, {
        expectedSourceVersion: 1,
        expectedOrgVersion,
        data: { givenName, familyName: 'Example' },
      });
    expect((await correct(viaA, 1, 'Anne')).status).to.equal(200); // a holds the chain at orgVersion 2
    expect((await correct(viaB, 2, 'Annie')).status).to.equal(200);
    const corrected = await count('CopyCorrected');

    // a's memory is at orgVersion 2, as the client says: its append clashes, and the read after it finds 3.
    const late = await correct(viaA, 2, 'Anna');
    expect(late.status, JSON.stringify(late.body)).to.equal(409);
    expect(late.body.code).to.equal('version_conflict');
    expect(await count('CopyCorrected')).to.equal(corrected);
  });
});
