import { expect } from 'chai';
import { VaultKeyErasedError } from '../../../src/vaults/keyring.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { fileClient } from '../files/file-client.js';
import { orgClient, problem, type OrgClient } from '../org/org-client.js';
import { driver, MANUAL_NAME_SLOT, type Manifest, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';

type Adoption = { adoptionId: string; orgResourceId: string; sourceResourceId: string };
type SealedRow = { type: string; org_resource_id: string; sealed: string | null; adoption_id: string | null; org_version: number };

const name = (givenName: string) => ({ givenName, familyName: 'Example' });

describe(`an organization deletes its copy: the chain is shredded, the deletion stays in the history (contract 9, R-ERAS-02; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let token: string;
  let ann: User;
  let manifest: Manifest;

  const d = driver({ api: () => api, member: () => token });
  const createDoc = (givenName: string) => d.createDoc(ann, 'PersonFullName', name(givenName));
  async function keptRequest(doc: string, fileId: string): Promise<{ requestId: string; kept: Adoption[] }> {
    const [nameSlot, fileSlot] = manifest.slots.map((s) => s.slotId) as [string, string];
    const requestId = await d.connected(manifest.manifestId, ann, { [nameSlot]: [doc], [fileSlot]: [fileId] });
    const kept: Adoption[] = [];
    for (const slotId of [nameSlot, fileSlot]) kept.push(...((await d.kept(requestId, slotId)) as Adoption[]));
    return { requestId, kept };
  }
  const correct = (requestId: string, data: Record<string, unknown>) =>
    d.correct(requestId, manifest.slots[0]!.slotId, { expectedSourceVersion: 1, expectedOrgVersion: 1, data });
  /** Every sealed copy payload the log holds, as an attacker with the database would find it. */
  const sealedInLog = async (orgResourceId: string) =>
    (
      await service.db.query<SealedRow>(
        `SELECT type, data->>'orgResourceId' AS org_resource_id, data->>'sealedData' AS sealed, data->>'adoptionId' AS adoption_id,
                (data->>'orgVersion')::int AS org_version
         FROM es.events WHERE data->>'orgResourceId' = $1 AND type IN ('CopyKept', 'CopyCorrected')`,
        [orgResourceId],
      )
    ).rows;

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    const owner = await api.user();
    token = await api.signIn(owner.token, await api.organization(owner.token, 'Acme'));
    manifest = await d.manifest([MANUAL_NAME_SLOT, { ...MANUAL_NAME_SLOT, label: 'Passport', kind: 'file', target: 'PassportScan' }]);
    ann = await api.user();
  });
  after(() => service.close());

  it('DELETE answers {deleted: true}; the copy, its corrections and its file leave the copies; a second call is 404', async () => {
    const files = fileClient(service.url);
    const fileId = (await files.upload(ann.token, { fileName: 'passport.pdf', label: 'Passport' }, Buffer.from('%PDF-1'))).json
      .fileId as string;
    const { requestId, kept } = await keptRequest(await createDoc('Ann'), fileId);
    const [doc, file] = kept as [Adoption, Adoption];
    const corrected = await correct(requestId, name('Anna'));
    expect(corrected.status, JSON.stringify(corrected.body)).to.equal(200);

    for (const copy of [doc, file]) {
      const r = await api.del(`/org/v1/requests/${requestId}/copies/${copy.adoptionId}`, token);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body).to.deep.equal({ deleted: true });
      expect(problem(await api.del(`/org/v1/requests/${requestId}/copies/${copy.adoptionId}`, token))).to.deep.equal({
        status: 404,
        code: 'not_found',
      });
    }
    expect((await api.get(`/org/v1/requests/${requestId}/copies`, token)).body.copies).to.deep.equal([]);
    expect((await api.get(`/org/v1/requests/${requestId}`, token)).body.adoptions).to.deep.equal([]);
    expect((await api.get(`/org/v1/requests/${requestId}/files`, token)).body.files).to.deep.equal([]);
    expect(problem(await api.get(`/org/v1/requests/${requestId}/copies/${file.adoptionId}/download`, token))).to.deep.equal({
      status: 404,
      code: 'not_found',
    });
    const history = (await api.get(`/org/v1/requests/${requestId}/history`, token)).body.history as Array<{ type: string; actor: string }>;
    expect(history.filter((e) => e.type === 'CopyDeleted')).to.have.length(2);
    expect(history.map((e) => e.type)).to.include.members(['CopyKept', 'CopyCorrected']);
  });

  it("shreds that chain only: its sealed versions in the log no longer open, another chain's still do", async () => {
    const files = fileClient(service.url);
    const fileId = (await files.upload(ann.token, { fileName: 'p.pdf', label: 'Passport' }, Buffer.from('%PDF-2'))).json.fileId as string;
    const gone = await keptRequest(await createDoc('Bo'), fileId);
    const stays = await keptRequest(await createDoc('Cy'), fileId);
    const target = gone.kept[0]!;
    expect((await api.del(`/org/v1/requests/${gone.requestId}/copies/${target.adoptionId}`, token)).status).to.equal(200);

    const keyring = service.domain!.keyring;
    const open = (row: SealedRow) =>
      keyring.decrypt(
        row.org_resource_id,
        Buffer.from(row.sealed!, 'base64'),
        row.type === 'CopyKept' ? `copy:${row.org_resource_id}/${row.adoption_id}` : `copy:${row.org_resource_id}/v${row.org_version}`,
      );
    const shredded = await sealedInLog(target.orgResourceId);
    expect(shredded).to.have.length.greaterThan(0);
    for (const row of shredded) {
      const error = await open(row).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(VaultKeyErasedError);
    }
    const [kept] = await sealedInLog(stays.kept[0]!.orgResourceId);
    expect(JSON.parse((await open(kept!)).toString('utf8'))).to.deep.equal(name('Cy'));
    // The organization still sees the other request's copy.
    expect((await api.get(`/org/v1/requests/${stays.requestId}/copies`, token)).body.copies).to.have.length(2);
  });

  it('a deleted chain keeps nothing more: keeping the record again is refused; another organization and an unknown id find nothing', async () => {
    const files = fileClient(service.url);
    const fileId = (await files.upload(ann.token, { fileName: 'q.pdf', label: 'Passport' }, Buffer.from('%PDF-3'))).json.fileId as string;
    const { requestId, kept } = await keptRequest(await createDoc('Di'), fileId);
    const other = await api.user();
    const otherToken = await api.signIn(other.token, await api.organization(other.token, 'Other'));
    expect(problem(await api.del(`/org/v1/requests/${requestId}/copies/${kept[0]!.adoptionId}`, otherToken))).to.deep.equal({
      status: 404,
      code: 'not_found',
    });
    expect(problem(await api.del(`/org/v1/requests/${requestId}/copies/${requestId}`, token))).to.deep.equal({
      status: 404,
      code: 'not_found',
    });
    expect(problem(await api.del(`/org/v1/requests/${requestId}/copies/not-a-uuid`, token))).to.deep.equal({
      status: 404,
      code: 'not_found',
    });

    expect((await api.del(`/org/v1/requests/${requestId}/copies/${kept[0]!.adoptionId}`, token)).status).to.equal(200);
    const again = await d.keep(requestId, manifest.slots[0]!.slotId);
    expect(problem(again)).to.deep.equal({ status: 403, code: 'adoption_refused' });
    expect(again.body.detail).to.equal('the organization deleted its copy of this record');
    expect((await api.get(`/org/v1/requests/${requestId}/copies`, token)).body.copies, 'the file copy stays').to.have.length(1);
  });

  it('a deletion cut off after it shredded the key, before it was recorded: keeping a newer version is refused as deleted, never a 500', async () => {
    const files = fileClient(service.url);
    const fileId = (await files.upload(ann.token, { fileName: 'r.pdf', label: 'Passport' }, Buffer.from('%PDF-4'))).json.fileId as string;
    const doc = await createDoc('Ed');
    const { requestId, kept } = await keptRequest(doc, fileId);
    await service.domain!.keyring.erase(kept[0]!.orgResourceId);
    await d.updateDoc(ann, doc, name('Eddie'));

    const again = await d.keep(requestId, manifest.slots[0]!.slotId);
    expect(problem(again)).to.deep.equal({ status: 403, code: 'adoption_refused' });
    expect(again.body.detail).to.equal('the organization deleted its copy of this record');
  });

  it('a correct racing the deletion of its copy is 409 while the key is shredded and 404 once it is recorded, never a 500 (R-CONS-04)', async () => {
    const files = fileClient(service.url);
    const fileId = (await files.upload(ann.token, { fileName: 'c.pdf', label: 'Passport' }, Buffer.from('%PDF-5'))).json.fileId as string;
    const { requestId, kept } = await keptRequest(await createDoc('Flo'), fileId);
    // The deletion erases the chain's key before it records CopyDeleted: a correct in between finds the key gone.
    await service.domain!.keyring.erase(kept[0]!.orgResourceId);
    expect(problem(await correct(requestId, name('Flora')))).to.deep.equal({ status: 409, code: 'conflict' });
    // Named, the record's chain key comes with the request's read: found erased all the same.
    const named = { sourceResourceId: kept[0]!.sourceResourceId, expectedSourceVersion: 1, expectedOrgVersion: 1, data: name('Flora') };
    expect(problem(await d.correct(requestId, manifest.slots[0]!.slotId, named))).to.deep.equal({ status: 409, code: 'conflict' });
    expect((await api.del(`/org/v1/requests/${requestId}/copies/${kept[0]!.adoptionId}`, token)).status).to.equal(200);
    expect(problem(await correct(requestId, name('Flora')))).to.deep.equal({ status: 404, code: 'not_found' });
  });
});
