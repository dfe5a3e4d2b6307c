import type { RecordedEvent as EsRecordedEvent } from '@eventstore/db-client';
import { expect } from 'chai';
import type { ExpectedRevision, NewEvent, RecordedEvent } from '../../src/events/envelope.js';
import {
  isAfter,
  isSameBatch,
  isSystemEventType,
  readFrom,
  satisfies,
  toEventData,
  toRecordedEvent,
  toRevision,
} from '../../src/events/eventstoredb/mapping.js';
import { linkBatch } from '../../src/events/hash-chain.js';
import { START } from '../../src/events/position.js';
import { newEvent, uniqueStream } from '../support/events.js';

/** What the client hands back for an event this store appended. */
function clientEvent(streamId: string, revision: number, event: NewEvent, overrides: Partial<EsRecordedEvent> = {}): EsRecordedEvent {
  const [metadata] = linkBatch(streamId, revision, [event], null);
  return {
    streamId,
    id: event.metadata.eventId,
    isJson: true,
    revision: BigInt(revision),
    type: event.type,
    created: new Date(),
    data: event.data,
    metadata,
    position: { commit: 1000n + BigInt(revision), prepare: 1000n + BigInt(revision) },
    ...overrides,
  } as EsRecordedEvent;
}

/** Our view of a stream's events, as the store would have read them. */
function recorded(streamId: string, events: readonly NewEvent[], firstRevision = 0): RecordedEvent[] {
  return events.map((e, i) => toRecordedEvent(clientEvent(streamId, firstRevision + i, e)));
}

describe('EventStoreDB adapter mapping (no server)', () => {
  describe('client event to ours', () => {
    it('keeps stream, type, data and metadata, and turns revision and position into ours', () => {
      const s = uniqueStream();
      const event = newEvent('Created', { n: 1, nested: { ok: true } });
      const mapped = toRecordedEvent(clientEvent(s, 3, event));
      expect(mapped.streamId).to.equal(s);
      expect(mapped.revision).to.equal(3);
      expect(mapped.position).to.deep.equal({ commit: 1003n, prepare: 1003n });
      expect(mapped.type).to.equal('Created');
      expect(mapped.data).to.deep.equal({ n: 1, nested: { ok: true } });
      expect(mapped.metadata).to.include({ eventId: event.metadata.eventId, prevHash: null });
      expect(mapped.metadata.hash).to.match(/^[0-9a-f]{64}$/);
    });

    it('refuses an event this store did not write rather than guess its envelope', () => {
      const s = uniqueStream();
      const event = newEvent('A');
      const binary = { ...clientEvent(s, 0, event), isJson: false, data: new Uint8Array([1, 2]) } as EsRecordedEvent;
      expect(() => toRecordedEvent(binary)).to.throw(/JSON object/);
      expect(() => toRecordedEvent(clientEvent(s, 0, event, { data: [1, 2] }))).to.throw(/JSON object/);
      expect(() => toRecordedEvent(clientEvent(s, 0, event, { metadata: { eventId: 'x' } }))).to.throw(/envelope/);
      expect(() => toRecordedEvent(clientEvent(s, 0, event, { metadata: undefined }))).to.throw(/envelope/);
      expect(() => toRecordedEvent(clientEvent(s, 0, event, { position: undefined }))).to.throw(/position/);
    });

    it('refuses a revision past what a number counts exactly', () => {
      expect(toRevision(41n)).to.equal(41);
      expect(() => toRevision(2n ** 53n)).to.throw(RangeError);
    });

    it('recognises EventStoreDB system events by their $ type', () => {
      expect(isSystemEventType('$metadata')).to.equal(true);
      expect(isSystemEventType('$>')).to.equal(true);
      expect(isSystemEventType('OrganizationCreated')).to.equal(false);
    });
  });

  describe('our batch to the client', () => {
    it('writes JSON events whose id is our event id and whose metadata is the linked envelope', () => {
      const s = uniqueStream();
      const events = [newEvent('A', { a: 1 }), newEvent('B')];
      const linked = linkBatch(s, 0, events, null);
      const data = toEventData(events, linked);
      expect(data.map((d) => d.id)).to.deep.equal(events.map((e) => e.metadata.eventId));
      expect(data.map((d) => d.type)).to.deep.equal(['A', 'B']);
      expect(data.map((d) => d.contentType)).to.deep.equal(['application/json', 'application/json']);
      expect(data[0]!.data).to.deep.equal({ a: 1 });
      expect(data.map((d) => d.metadata)).to.deep.equal(linked);
    });
  });

  describe('expected revision', () => {
    const cases: Array<[ExpectedRevision, number | 'no_stream', boolean]> = [
      ['any', 'no_stream', true],
      ['any', 4, true],
      ['no_stream', 'no_stream', true],
      ['no_stream', 0, false],
      ['stream_exists', 'no_stream', false],
      ['stream_exists', 0, true],
      [2, 2, true],
      [2, 1, false],
      [2, 3, false],
      [0, 'no_stream', false],
    ];
    for (const [expected, actual, ok] of cases) {
      it(`${String(expected)} ${ok ? 'accepts' : 'refuses'} a stream at ${String(actual)}`, () => {
        expect(satisfies(expected, actual)).to.equal(ok);
      });
    }
  });

  describe('positions', () => {
    it('reads from the beginning for START and from the position itself otherwise', () => {
      expect(readFrom(START)).to.equal('start');
      expect(readFrom({ commit: 10n, prepare: 9n })).to.deep.equal({ commit: 10n, prepare: 9n });
    });

    it('counts only a later position as after, since the client reads from a position inclusively', () => {
      const at = { commit: 10n, prepare: 10n };
      expect(isAfter(at, at)).to.equal(false);
      expect(isAfter({ commit: 10n, prepare: 11n }, at)).to.equal(true);
      expect(isAfter({ commit: 11n, prepare: 0n }, at)).to.equal(true);
      expect(isAfter({ commit: 9n, prepare: 20n }, at)).to.equal(false);
      expect(isAfter({ commit: 0n, prepare: 0n }, START)).to.equal(true);
    });
  });

  describe('recognising a retried append', () => {
    it('matches the stream tail that is exactly the batch, in order', () => {
      const s = uniqueStream();
      const batch = [newEvent('A'), newEvent('B')];
      expect(isSameBatch(recorded(s, batch, 5), batch)).to.equal(true);
    });

    it('does not match other events, another order, part of the batch or a gap', () => {
      const s = uniqueStream();
      const batch = [newEvent('A'), newEvent('B')];
      expect(isSameBatch(recorded(s, [newEvent('A'), newEvent('B')]), batch)).to.equal(false);
      expect(isSameBatch(recorded(s, [batch[1]!, batch[0]!]), batch)).to.equal(false);
      expect(isSameBatch(recorded(s, [batch[1]!], 1), batch)).to.equal(false);
      const [first, second] = recorded(s, batch);
      expect(isSameBatch([first!, { ...second!, revision: 3 }], batch)).to.equal(false);
    });
  });
});
