import { expect } from 'chai';
import type { SlotDraft } from '../../../src/commands/manifests/manifest-state.js';
import type { ManifestPublished, Slot } from '../../../src/events/manifest-events.js';
import { retentionMs, retentionProblem } from '../../../src/manifests/retention.js';
import { specOf } from '../../support/given.js';
import { manifestDecider } from '../../../src/commands/manifests/manifest-decider.js';

const now = new Date('2026-11-22T10:00:00.000Z');
const draft = (over: Partial<SlotDraft> = {}): SlotDraft => ({
  slotId: null,
  label: 'Name',
  group: 'Identity',
  subject: null,
  multiple: false,
  kind: 'schema',
  target: 'PersonFullName',
  verbs: ['fill', 'keep'],
  adoption: 'manual',
  required: false,
  ...over,
});
const slot = (slotId: string, over: Partial<Slot> = {}): Slot => ({ ...draft(), slotId, ...over });
const v1: ManifestPublished = {
  type: 'ManifestPublished',
  data: {
    manifestId: 'm1',
    organizationId: 'o1',
    name: 'KYC',
    version: 1,
    purpose: 'To know who you are',
    retention: 'P365D',
    slots: [slot('s1')],
    publishedAt: now.toISOString(),
  },
};
const givenCreate = specOf(manifestDecider, 'CreateManifest');
const givenVersion = specOf(manifestDecider, 'PublishManifestVersion');
const create = (slots: SlotDraft[], freshSlotIds = slots.map((_, i) => `n${i}`)) => ({
  manifestId: 'm1',
  organizationId: 'o1',
  name: 'KYC',
  purpose: 'To know who you are',
  retention: 'P365D',
  slots,
  freshSlotIds,
  now,
});
const version = (slots: SlotDraft[], organizationId = 'o1') => ({
  manifestId: 'm1',
  organizationId,
  purpose: 'To know who you are, again',
  retention: 'P30D',
  slots,
  freshSlotIds: slots.map((_, i) => `n${i}`),
  now,
});

describe('manifests (contract 3)', () => {
  it('publishes version 1 with fresh slot ids', () =>
    givenCreate()
      .when(create([draft()], ['s1']))
      .then(v1));

  it('a version carries slots over by slotId and gives new slots fresh ids; name and organization stay', () =>
    givenVersion(v1)
      .when(version([draft({ slotId: 's1', label: 'Full name' }), draft({ kind: 'file', target: 'PassportScan' })]))
      .then({
        type: 'ManifestPublished',
        data: {
          manifestId: 'm1',
          organizationId: 'o1',
          name: 'KYC',
          version: 2,
          purpose: 'To know who you are, again',
          retention: 'P30D',
          publishedAt: now.toISOString(),
          slots: [slot('s1', { label: 'Full name' }), slot('n1', { kind: 'file', target: 'PassportScan' })],
        },
      }));

  it('§11: a version publishes its purpose and which slots are required', () =>
    givenVersion(v1)
      .when({ ...version([draft({ slotId: 's1', required: true }), draft()]), purpose: 'To open an account' })
      .then({
        type: 'ManifestPublished',
        data: {
          ...v1.data,
          version: 2,
          purpose: 'To open an account',
          retention: 'P30D',
          slots: [slot('s1', { required: true }), slot('n1')],
        },
      }));

  it('a slotId must name a slot of the previous version, once', () => {
    givenCreate()
      .when(create([draft({ slotId: 's1' })]))
      .thenRefused('invalid_request', /^slots\[0\]\.slotId/);
    givenVersion(v1)
      .when(version([draft({ slotId: 's9' })]))
      .thenRefused('invalid_request', /^slots\[0\]\.slotId/);
    givenVersion(v1)
      .when(version([draft({ slotId: 's1' }), draft({ slotId: 's1' })]))
      .thenRefused('invalid_request', /^slots\[1\]\.slotId/);
  });

  it('kind schema needs a built-in schema name; kind file takes a free label', () => {
    givenCreate()
      .when(create([draft(), draft({ target: 'Passport' })]))
      .thenRefused('invalid_request', /^slots\[1\]\.target/);
    givenCreate()
      .when(create([draft({ kind: 'file', target: 'Passport' })]))
      .then({
        type: 'ManifestPublished',
        data: { ...v1.data, slots: [slot('n0', { kind: 'file', target: 'Passport' })] },
      });
  });

  it('adoption auto needs the keep verb', () => {
    givenCreate()
      .when(create([draft({ adoption: 'auto', verbs: ['fill', 'edit'] })]))
      .thenRefused('invalid_request', /^slots\[0\]\.adoption/);
    givenCreate()
      .when(create([draft({ adoption: 'auto', verbs: ['keep'] })], ['s1']))
      .then({
        type: 'ManifestPublished',
        data: { ...v1.data, slots: [slot('s1', { adoption: 'auto', verbs: ['keep'] })] },
      });
  });

  it("another organization's manifest, or none, is not_found; a manifest id is created once", () => {
    givenVersion(v1)
      .when(version([draft()], 'o2'))
      .thenRefused('not_found');
    givenVersion()
      .when(version([draft()]))
      .thenRefused('not_found');
    givenCreate(v1)
      .when(create([draft()]))
      .thenRefused('conflict');
  });
});

describe('retention (contract 0: ISO 8601 durations, smallest PT1S; contract 9: at most 100 years)', () => {
  it('accepts whole-unit durations of at least a second', () => {
    for (const d of ['PT1S', 'PT2S', 'P365D', 'P1Y2M', 'P2W', 'P1DT12H', 'PT90M', 'P0DT1S']) expect(retentionProblem(d), d).to.equal(null);
  });
  it('refuses zero, fractions, lower case, empty parts and other text', () => {
    for (const d of ['PT0S', 'P0D', 'PT0.5S', 'p1d', 'P', 'PT', 'P1DT', '1D', 'P1H', 'P-1D', ' P1D', ''])
      expect(retentionProblem(d), d).to.be.a('string');
  });
  it('accepts up to 100 years, counting 365-day years and 30-day months, and refuses anything longer', () => {
    for (const d of ['P100Y', 'P36500D', 'P1216M', 'P99Y365D', 'P5214W', 'PT876000H']) expect(retentionProblem(d), d).to.equal(null);
    for (const d of ['P101Y', 'P100YT1S', 'P36501D', 'P1217M', 'P5215W', 'P36500DT1S', 'P999999999Y', 'P999999999Y999999999M999999999W']) {
      expect(retentionProblem(d), d).to.contain('at most 100 years');
    }
  });
  it('reads a retention published before the bound as the longest one allowed, which fits a bigint column', () => {
    expect(retentionMs('P100Y')).to.equal(100 * 365 * 86_400_000);
    expect(retentionMs('P999999999Y')).to.equal(retentionMs('P100Y'));
  });
});
