import { expect } from 'chai';
import { appendReplicas, replicaOf, type LoggedEvent } from '../../bench/domain-log.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';

const person = '0f124023-d870-49e1-8cd6-15886b39eae3';
const emailHash = '6531aa83a8f51495e80f2afce98c0f8c4ad6ec41e2cb19b83652857c5400f8e0';
const metadata = (eventId: string) => ({
  eventId,
  occurredAt: '2026-11-27T19:57:03.033Z',
  actor: { kind: 'user', id: person },
  correlationId: 'c0ffee00-0000-4000-8000-000000000000',
  causationId: null,
  schemaVersion: 1,
  hash: 'a'.repeat(64),
  prevHash: null,
});

/** A recorded log in miniature: an address claimed, the person's session, and the log's own checkpoint. */
const recorded: LoggedEvent[] = [
  {
    streamId: `email-${emailHash}`,
    revision: 0,
    type: 'EmailClaimed',
    data: { email: 'bench-f9099b669e3e@example.com', identityId: person },
    metadata: metadata('9e58c8dd-c7f1-5a69-84ed-21257be68707'),
  },
  {
    streamId: 'session-d224c87b-6c53-4403-9619-113f2d0ab7be',
    revision: 0,
    type: 'SessionStarted',
    data: { sessionId: 'd224c87b-6c53-4403-9619-113f2d0ab7be', identityId: person, email: 'bench-f9099b669e3e@example.com' },
    metadata: metadata('532c963f-2a6a-59bc-9a0d-f3b03298c8c7'),
  },
  {
    streamId: 'session-d224c87b-6c53-4403-9619-113f2d0ab7be',
    revision: 1,
    type: 'SessionEnded',
    data: { sessionId: 'd224c87b-6c53-4403-9619-113f2d0ab7be' },
    metadata: metadata('632c963f-2a6a-59bc-9a0d-f3b03298c8c7'),
  },
  {
    streamId: 'log-checkpoint',
    revision: 0,
    type: 'LogCheckpointed',
    data: { events: 3 },
    metadata: metadata('9006305b-be99-5139-9198-b4461ef2cadc'),
  },
];

describe("the bench's domain log: a recorded scenario copied with fresh ids", () => {
  it('renames every id, hash and address of a copy the same way in each of its events, and each copy its own way', () => {
    const [claimed, started] = [replicaOf(recorded[0]!, 7), replicaOf(recorded[1]!, 7)];
    expect(claimed.data.identityId).to.equal('0f124024-d870-49e1-8cd6-15886b39eae3');
    expect(started.data.identityId).to.equal(claimed.data.identityId);
    expect(claimed.streamId).to.equal(`email-6531aa84${emailHash.slice(8)}`);
    expect(claimed.data.email).to.equal('bench-f9099b669e3e+r7@example.com');
    expect(started.data.email).to.equal(claimed.data.email);
    expect(replicaOf(recorded[0]!, 8).data.identityId).to.not.equal(claimed.data.identityId);
    expect(claimed.type).to.equal('EmailClaimed');
    expect(claimed.metadata.occurredAt).to.equal(recorded[0]!.metadata.occurredAt);
  });
});

describe(`the bench's domain log appended (${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;
  beforeEach(async () => {
    t = await openTestDatabase();
  });
  afterEach(() => t.drop());

  it('appends whole copies until the log holds as many events as asked, each stream as recorded, the log checkpoint never', async () => {
    const store = await SqlEventStore.open(t.db);
    expect(await appendReplicas(store, recorded, 7, 2)).to.equal(9);
    const log = await store.readAll();
    expect(log).to.have.length(9);
    expect(log.filter((e) => e.type === 'LogCheckpointed')).to.have.length(0);
    const sessions = log.filter((e) => e.streamId.startsWith('session-'));
    expect(new Set(sessions.map((e) => e.streamId)).size).to.equal(3);
    for (const s of new Set(sessions.map((e) => e.streamId)))
      expect(sessions.filter((e) => e.streamId === s).map((e) => [e.revision, e.type])).to.deep.equal([
        [0, 'SessionStarted'],
        [1, 'SessionEnded'],
      ]);
    // The store chains the copies' hashes anew: the recording's are not carried over.
    expect(log.every((e) => e.metadata.hash !== 'a'.repeat(64))).to.equal(true);
  });
});
