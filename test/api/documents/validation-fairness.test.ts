import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { client } from '../../support/http.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient } from '../org/org-client.js';
import { startTestService, type TestService } from '../support/service.js';

type Gql = { data?: Record<string, any>; errors?: Array<{ message: string; extensions: { code: string } }> };

const BUDGET_MS = 1000;
// Catastrophic backtracking: each validation holds its worker until the budget kills it.
const hostileInput = { name: 'x', documentSchema: { type: 'string', pattern: '^(a+)+$' }, data: `${'a'.repeat(40)}b` };
const aliasedValidates = (n: number) =>
  `mutation($input: DocumentInput!) { user { document { ${Array.from(
    { length: n },
    (_, i) => `v${i}: validate(input: $input) { valid }`,
  ).join(' ')} } } }`;

describe(`embedded-schema validation under a flood (spec 4.2; ${mainBackend})`, function () {
  this.timeout(90_000);
  let service: TestService;
  let api: ReturnType<typeof client>;
  const mailer = new RecordingMailer();

  before(async () => {
    service = await startTestService({ domain: { mailer, env: { VALIDATION_BUDGET_MS: String(BUDGET_MS) } } });
    api = client(service.url);
  });
  after(() => service.close());

  const registered = async (): Promise<string> => (await orgClient(service.url, mailer).user()).token;

  it("another caller's validation answers within its budget, correctly, all through one caller's flood", async () => {
    const [mallory, ann] = [await registered(), await registered()];
    // Warm both workers up, so their start is not counted against anyone's budget below.
    await Promise.all(
      [ann, mallory].map((t) => api.graphql(t, aliasedValidates(1), { input: { name: 'w', documentSchema: {}, data: 1 } })),
    );

    // Mallory keeps requests of 10 aliased hostile validations coming for as long as Ann asks. A
    // request with a refused field is answered at once, its other fields running on unseen: being
    // refused shows she has her whole share of the pool meanwhile.
    let flooding = true;
    const codes: string[] = [];
    const floodOne = async () => {
      while (flooding) {
        const r = (await api.graphql(mallory, aliasedValidates(10), { input: hostileInput })).body as Gql;
        codes.push(...(r.errors ?? []).map((e) => e.extensions.code));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const flood = Promise.all(Array.from({ length: 3 }, floodOne));

    const probes: number[] = [];
    for (let i = 0; i < 6; i++) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      const started = performance.now();
      const answer = (
        await api.graphql(ann, aliasedValidates(1), {
          input: {
            name: 'nick',
            documentSchema: { type: 'object', properties: { nickname: { type: 'string', maxLength: 20 } } },
            data: { nickname: `annie${i}` },
          },
        })
      ).body as Gql;
      probes.push(performance.now() - started);
      expect(answer.errors).to.equal(undefined);
      expect(answer.data!.user.document.v0).to.deep.equal({ valid: true });
    }
    flooding = false;
    await flood;
    console.log(`      ann answered in ${probes.map((ms) => ms.toFixed(0)).join(', ')} ms during the flood`);

    for (const ms of probes) expect(ms).to.be.below(BUDGET_MS + 1000);
    expect(codes, 'the flood beyond its share is refused at once').to.include('RATE_LIMITED');
    expect(codes.filter((c) => c !== 'RATE_LIMITED' && c !== 'SCHEMA_INVALID')).to.deep.equal([]);
  });
});
