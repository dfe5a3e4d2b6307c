import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient } from '../org/org-client.js';
import { consentScenario, MANUAL_NAME_SLOT } from '../support/consent-scenario.js';
import { twoInstances, type TwoInstances } from '../support/two-instances.js';

type Adoption = { adoptionId: string; sourceVersion: number; orgVersion: number };

describe(`keeping copies on two instances of one database (R-KEEP-02; ${mainBackend})`, function () {
  this.timeout(120_000);
  let both: TwoInstances;
  const mailer = new RecordingMailer();

  before(async () => {
    both = await twoInstances(mailer);
  });
  after(() => both.close());

  it('a keep of a version the other instance kept since this one last kept the chain appends nothing and answers that adoption', async () => {
    const { t, a, b } = both;
    const [viaA, viaB] = [orgClient(a.url, mailer), orgClient(b.url, mailer)];
    const owner = await viaA.user();
    const member = await viaA.signIn(owner.token, await viaA.organization(owner.token));
    const manifest = await viaA.post('/org/v1/manifests', member, { name: 'KYC', retention: 'P30D', slots: [MANUAL_NAME_SLOT] });
    expect(manifest.status, JSON.stringify(manifest.body)).to.equal(201);
    const { manifestId, slots } = manifest.body.manifest as { manifestId: string; slots: Array<{ slotId: string }> };
    const [onA, onB] = [consentScenario(viaA, () => member), consentScenario(viaB, () => member)];
    const person = await viaA.user();
    const doc = await onA.createDoc(person, 'PersonFullName', { givenName: 'Ann', familyName: 'Example' });
    const requestId = await onA.connected(manifestId, person, { [slots[0]!.slotId]: [doc] });

    await onA.keep(requestId, slots[0]!.slotId); // instance a now holds the chain, version 1 kept
    await onA.updateDoc(person, doc, { givenName: 'Anna', familyName: 'Example' });
    const byB = ((await onB.keep(requestId, slots[0]!.slotId)).adoptions as Adoption[])[0]!;
    const events = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM es.events WHERE type = 'CopyKept'`);

    // a's memory says version 2 is not kept: its append clashes, and the read after it finds b's keep.
    const byA = ((await onA.keep(requestId, slots[0]!.slotId)).adoptions as Adoption[])[0]!;
    expect(byA).to.deep.equal(byB);
    expect(byA).to.include({ sourceVersion: 2, orgVersion: 2 });
    const after = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM es.events WHERE type = 'CopyKept'`);
    expect(after.rows).to.deep.equal(events.rows);
  });
});
