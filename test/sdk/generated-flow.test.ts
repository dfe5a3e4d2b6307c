import { expect } from 'chai';
import { createApi, ok } from '@dss/sdk';
import { mainBackend } from '../support/databases.js';
import { sdkScenario, type SdkScenario } from './support/sdk-scenario.js';

describe(`openapi-fetch over the generated types runs the keep → correct → proposal flow against a real service (R-DOCS-08, C§12; ${mainBackend})`, function () {
  this.timeout(120_000);
  let s: SdkScenario;

  before(async () => {
    s = await sdkScenario();
  });
  after(async () => {
    await s?.close();
  });

  it('every call below is typed by sdk/src/openapi.ts alone: paths, bodies and answers, with no hand-written type', async () => {
    const api = createApi({ baseUrl: s.service.url, token: s.memberToken });
    const path = { requestId: s.requestId, slotId: s.slotId };

    const kept = await ok(api.POST('/org/v1/requests/{requestId}/slots/{slotId}/adopt', { params: { path } }));
    const adoption = kept.adoptions[0]!;
    expect(adoption).to.include({ sourceResourceId: s.documentId, sourceVersion: 1, state: 'materialized' });

    const copies = await ok(api.GET('/org/v1/requests/{requestId}/copies', { params: { path } }));
    const copy = copies.copies.find((c) => c.adoption.adoptionId === adoption.adoptionId)!;
    const corrected = await ok(
      api.POST('/org/v1/requests/{requestId}/slots/{slotId}/correct', {
        params: { path },
        body: {
          sourceResourceId: adoption.sourceResourceId,
          expectedSourceVersion: adoption.sourceVersion,
          expectedOrgVersion: copy.currentOrgVersion,
          data: { givenName: 'Ann', familyName: 'Exemplary' },
        },
      }),
    );
    expect(corrected.orgVersion).to.equal(copy.currentOrgVersion + 1);

    const v2 = await s.publish({ givenName: 'Anne', familyName: 'Example' });
    const open = await ok(api.GET('/org/v1/requests/{requestId}/proposals', { params: { path } }));
    const proposal = open.proposals.find((p) => p.newVersion === v2)!;
    const candidate = await ok(
      api.GET('/org/v1/requests/{requestId}/proposals/{proposalId}/candidate', {
        params: { path: { requestId: s.requestId, proposalId: proposal.proposalId } },
      }),
    );
    expect(candidate.data).to.deep.equal({ givenName: 'Anne', familyName: 'Example' });
    const adopted = await ok(
      api.POST('/org/v1/requests/{requestId}/proposals/{proposalId}/adopt', {
        params: { path: { requestId: s.requestId, proposalId: proposal.proposalId } },
      }),
    );
    expect(adopted).to.include({ sourceVersion: v2, state: 'materialized' });
    const after = await ok(api.GET('/org/v1/requests/{requestId}/copies', { params: { path } }));
    const newest = after.copies.find((c) => c.adoption.adoptionId === adopted.adoptionId)!;
    expect(newest.currentData).to.deep.equal({ givenName: 'Anne', familyName: 'Example' });
  });
});
