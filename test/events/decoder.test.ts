import { expect } from 'chai';
import type { DomainEvent } from '../../src/commands/decider.js';
import { eitherOf, eventDecoder, UndecodableEventError } from '../../src/events/decoder.js';
import type { JsonObject, RecordedEvent } from '../../src/events/envelope.js';
import { requestEvents } from '../../src/events/request-events.js';
import { manifestEvents } from '../../src/events/manifest-events.js';
import { organizationEvents } from '../../src/events/organization-events.js';
import { sessionEvents, userEvents } from '../../src/events/identity-events.js';

/** A stored event as the store hands it back: only type, data, version and place matter here. */
function stored(type: string, data: JsonObject, schemaVersion: number, streamId = 'request-1', revision = 3): RecordedEvent {
  return {
    streamId,
    revision,
    position: { commit: 1n, prepare: 1n },
    type,
    data,
    metadata: {
      eventId: '00000000-0000-4000-8000-000000000001',
      occurredAt: '2026-01-01T00:00:00.000Z',
      actor: { kind: 'system', id: 'test' },
      correlationId: 'c',
      causationId: null,
      schemaVersion,
      prevHash: null,
      hash: 'h',
    },
  };
}

const accepted = (retentionMs: number): JsonObject => ({
  requestId: 'r',
  retention: 'P30D',
  retentionMs,
  acceptedAt: '2026-01-01T00:00:00.000Z',
});
const HUNDRED_YEARS_MS = 3_153_600_000_000;

describe('decoding stored events (one decoder per event family, upcasting by schemaVersion)', () => {
  it('reads an event of the current version as its type, data unchanged', () => {
    const e = requestEvents.decode(stored('RequestAccepted', accepted(2_592_000_000), 2));
    expect(e.type).to.equal('RequestAccepted');
    if (e.type !== 'RequestAccepted') return;
    expect(e.data.retentionMs).to.equal(2_592_000_000);
    expect(e.streamId).to.equal('request-1');
  });

  it('upcasts RequestAccepted version 1: a retention over 100 years reads as 100 years, a shorter one as written', () => {
    const endless = requestEvents.decode(stored('RequestAccepted', accepted(999_999_999 * 31_536_000_000), 1));
    expect(endless.data).to.deep.include({ retentionMs: HUNDRED_YEARS_MS, retention: 'P30D' });
    expect(requestEvents.decode(stored('RequestAccepted', accepted(2_592_000_000), 1)).data).to.deep.equal(accepted(2_592_000_000));
  });

  it('§11: upcasts ManifestPublished version 1: purpose "" and every slot optional; version 2 reads as written', () => {
    const slot = { slotId: 's1', label: 'Name', group: 'Identity', subject: null, multiple: false, kind: 'schema' };
    const v1 = { manifestId: 'm', organizationId: 'o', name: 'KYC', version: 1, retention: 'P30D', slots: [slot], publishedAt: 'x' };
    const old = manifestEvents.decode(stored('ManifestPublished', v1, 1, 'manifest-m', 0));
    expect(old.data).to.deep.equal({ ...v1, purpose: '', slots: [{ ...slot, required: false }] });
    const v2 = { ...v1, purpose: 'KYC', slots: [{ ...slot, required: true }] };
    expect(manifestEvents.decode(stored('ManifestPublished', v2, 2, 'manifest-m', 0)).data).to.deep.equal(v2);
  });

  it('§13: upcasts AppRegistered version 1 (no redirect URIs, keys or identity provider) and 2 (no identity provider); version 3 reads as written', () => {
    const v1 = { organizationId: 'o', clientId: 'c', name: 'Portal' };
    const old = organizationEvents.decode(stored('AppRegistered', v1, 1, 'org-o', 4));
    expect(old.data).to.deep.equal({ ...v1, redirectUris: [], jwks: null, jwksUri: null, identityProvider: null });
    const v2 = { ...v1, redirectUris: ['https://portal.example/cb'], jwks: null, jwksUri: 'https://portal.example/jwks.json' };
    expect(organizationEvents.decode(stored('AppRegistered', v2, 2, 'org-o', 4)).data).to.deep.equal({ ...v2, identityProvider: null });
    const v3 = { ...v2, identityProvider: { issuer: 'https://id.portal.example', clientId: 'dss' } };
    expect(organizationEvents.decode(stored('AppRegistered', v3, 3, 'org-o', 4)).data).to.deep.equal(v3);
  });

  it('names the event, revision and stream it cannot read: another family, a newer version, a version nothing upcasts', () => {
    expect(() => requestEvents.decode(stored('SessionStarted', {}, 1))).to.throw(
      UndecodableEventError,
      'SessionStarted at revision 3 of request-1 is not a request event',
    );
    expect(() => requestEvents.decode(stored('RequestAccepted', accepted(1), 3))).to.throw(
      UndecodableEventError,
      /schema version 3; .* up to 2/,
    );
    type Renamed = DomainEvent<'Renamed', { name: string }>;
    const gap = eventDecoder<Renamed>('rename', { Renamed: { version: 3, upcasters: { 2: (d) => d } } });
    expect(() => gap.decode(stored('Renamed', { name: 'x' }, 1))).to.throw(
      UndecodableEventError,
      /schema version 1, which nothing upcasts/,
    );
  });

  it('a decoder over two families reads either, and refuses families that share a type', () => {
    const both = eitherOf(sessionEvents, userEvents);
    expect(both.decode(stored('SessionRevoked', { sessionId: 's' }, 1)).type).to.equal('SessionRevoked');
    expect(both.decode(stored('SessionsRevoked', { identityId: 'i', sessionIds: [] }, 1)).type).to.equal('SessionsRevoked');
    expect(both.versionOf('SessionRevoked')).to.equal(1);
    expect(() => eitherOf(userEvents, userEvents)).to.throw(/UserRegistered is in both/);
  });

  it('the version written is the current one of its type', () => {
    expect(requestEvents.versionOf('RequestAccepted')).to.equal(2);
    expect(requestEvents.versionOf('RequestSent')).to.equal(1);
  });
});
