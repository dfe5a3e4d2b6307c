import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { FEED_EVENT_TYPES, isFeedEventType } from '../../../src/events-feed/index.js';
import type { CopyWorkers } from '../../../src/workers/copy-workers.js';
import type { JobQueue } from '../../../src/workers/queue/queue.js';
import { openWorkerQueue, startWorkers } from '../../support/copy-workers.js';
import { mainBackend } from '../../support/databases.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { orgClient, type OrgClient } from '../org/org-client.js';
import { driver, schemaRef, type User } from '../support/driver.js';
import { startTestService, type TestService } from '../support/service.js';

type FeedEvent = { id: string; type: string; organizationId: string; requestId?: string; proposalId?: string };
type Schema = { title?: string };

/** docs/events.md's examples: every ```json block that is one event of the catalogue. */
function documentedExamples(): Array<{ type: string }> {
  const markdown = readFileSync(new URL('../../../docs/events.md', import.meta.url), 'utf8');
  const blocks = [...markdown.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as { type?: unknown });
  return blocks.flatMap((e) => (typeof e.type === 'string' && isFeedEventType(e.type) ? [{ ...e, type: e.type }] : []));
}

describe(`R-FEED-07 the catalogue: every type comes out of the flow that causes it, as GET /openapi.json and docs/events.md say (contract §12; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let queue: JobQueue;
  let workers: CopyWorkers;
  let api: OrgClient;
  let token: string;
  let events: FeedEvent[];
  /** The schema of each type's events, from the served document. */
  let schemas: Map<string, object>;
  const d = driver({ api: () => api, member: () => token });
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  /** Why `value` is not valid against `schema`, or null when it is. */
  const problemOf = (schema: object, value: unknown): string | null => (ajv.validate(schema, value) ? null : ajv.errorsText());

  /** Polls the organization's feed until `done` holds of it (the feed and the copy workers follow the log on their own). */
  async function feedUntil(done: (events: FeedEvent[]) => boolean): Promise<FeedEvent[]> {
    for (let i = 0; i < 200; i++) {
      const page = (await d.expectOk(api.get('/org/v1/events?limit=1000', token))) as { events: FeedEvent[] };
      if (done(page.events)) return page.events;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the feed never showed what the flow did');
  }
  const has =
    (type: string, times = 1) =>
    (feed: FeedEvent[]) =>
      feed.filter((e) => e.type === type).length >= times;

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    queue = await openWorkerQueue(service);
    workers = await startWorkers(service, queue);
    api = orgClient(service.url, mailer);
    const owner = await api.user();
    const organizationId = await api.organization(owner.token, 'Acme');
    token = await api.signIn(owner.token, organizationId);
    const slot = { group: 'KYC', kind: 'schema', verbs: ['keep'], adoption: 'manual' };
    const manifest = await d.manifest([
      { ...slot, label: 'Name', target: 'PersonFullName', multiple: false },
      { ...slot, label: 'Companies', target: 'LegalEntityRegistration', subject: 'company', multiple: true },
    ]);
    const [nameSlot, companySlot] = manifest.slots.map((s) => s.slotId) as [string, string];
    const ann: User = await api.user();
    const entity = await d.entity(ann, 'Alpha GmbH');
    const name = await d.createDoc(ann, 'PersonFullName', { givenName: 'Ann', familyName: 'Example' });
    const company = await d.createDoc(ann, {
      name: 'Alpha GmbH',
      owner: entity,
      schemaRef: schemaRef('LegalEntityRegistration'),
      data: { registrationNumber: 'HRB 1', country: 'DE' },
    });
    const requestId = await d.connected(manifest.manifestId, ann, { [nameSlot]: [name], [companySlot]: [company] });
    await d.kept(requestId, nameSlot);
    await d.expectOk(
      d.correct(requestId, nameSlot, {
        expectedSourceVersion: 1,
        expectedOrgVersion: 1,
        data: { givenName: 'Anna', familyName: 'Example' },
      }),
    );
    const [companyCopy] = await d.kept(requestId, companySlot);
    // A new version of the company's record: record.updated, and a proposal the organization dismisses.
    await d.updateDoc(ann, company, { registrationNumber: 'HRB 2', country: 'DE' });
    const [opened] = (await feedUntil(has('proposal.opened'))).filter((e) => e.type === 'proposal.opened');
    await d.expectOk(api.post(`/org/v1/requests/${requestId}/proposals/${opened!.proposalId}/dismiss`, token));
    await d.expectOk(api.del(`/org/v1/requests/${requestId}/copies/${companyCopy!.adoptionId}`, token));
    await d.suspend(ann, requestId);
    await d.resume(ann, requestId);
    await d.withdraw(ann, requestId, companySlot);
    // Sealed, a keep of her next name waits for the key; she revokes; a sign-in drains it into nothing.
    await d.expectOk(api.post('/org/v1/key/seal', token));
    await d.updateDoc(ann, name, { givenName: 'Anne', familyName: 'Example' });
    await feedUntil(has('proposal.opened', 2));
    await d.kept(requestId, nameSlot);
    await d.revoke(ann, requestId);
    token = await api.signIn(owner.token, organizationId);
    const rejected = await d.send(manifest.manifestId, ann.email);
    d.ok(await d.gql(ann, 'mutation($r: ID!) { user { request { reject(requestId: $r) { requestId } } } }', { r: rejected }));
    await d.expectOk(api.post(`/org/v1/requests/${await d.send(manifest.manifestId, ann.email)}/cancel`, token));
    events = await feedUntil((feed) => has('copy.discarded')(feed) && has('request.cancelled')(feed));

    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as {
      components: { schemas: { FeedEvent: { oneOf: Schema[] } } };
    };
    const oneOf = doc.components.schemas.FeedEvent.oneOf;
    schemas = new Map(oneOf.map((s) => [s.title!, s]));
  });
  after(async () => {
    await workers.stop();
    await queue.close();
    await service.close();
  });

  it('every type of the catalogue comes out of the flow, each event exactly as its type’s schema in GET /openapi.json has it', () => {
    expect([...new Set(events.map((e) => e.type))].sort()).to.deep.equal([...FEED_EVENT_TYPES].sort());
    expect([...schemas.keys()].sort()).to.deep.equal([...FEED_EVENT_TYPES].sort());
    const invalid = events.flatMap((e) => {
      const wrong = problemOf(schemas.get(e.type)!, e);
      return wrong === null ? [] : [`${e.type}: ${wrong} in ${JSON.stringify(e)}`];
    });
    expect(invalid).to.deep.equal([]);
  });

  it('docs/events.md shows one example of every type, each valid against its type’s schema', () => {
    const examples = documentedExamples();
    expect(examples.map((e) => e.type).sort()).to.deep.equal([...FEED_EVENT_TYPES].sort());
    const invalid = examples.flatMap((e) => {
      const wrong = problemOf(schemas.get(e.type)!, e);
      return wrong === null ? [] : [`${e.type}: ${wrong}`];
    });
    expect(invalid).to.deep.equal([]);
  });
});
