import { expect } from 'chai';
import { emptyChain, evolveChain } from '../../../src/commands/copies/chain-state.js';
import type { KeepCopy } from '../../../src/commands/copies/keep-copy.js';
import { chainDecider } from '../../../src/commands/copies/chain-decider.js';
import { adoptionIdOf, type CopyCorrected, type CopyDeleted, type CopyKept } from '../../../src/events/copy-events.js';
import { specOf } from '../../support/given.js';

const now = new Date('2026-10-02T09:00:00.000Z');
/** The adoption that keeps version `v` of the record into the chain, named as the service names it. */
const a = (v: number): string => adoptionIdOf('r', 's', 'src', v);
const keep = (sourceVersion: number, adoptionId = a(sourceVersion)): KeepCopy => ({
  adoptionId,
  requestId: 'r',
  organizationId: 'o',
  slotId: 's',
  sourceResourceId: 'src',
  sourceVersion,
  orgResourceId: 'copy',
  participant: null,
  adoptedAt: '2026-10-01T09:00:00.000Z',
  now,
  content: { resourceType: 'document', name: 'Address', schemaRef: 'ref', sealedData: `sealed-${adoptionId}`, file: null },
});
const kept = (sourceVersion: number, orgVersion: number): CopyKept => {
  const { now: _n, content, ...rest } = keep(sourceVersion);
  return { type: 'CopyKept', data: { ...rest, ...content!, orgVersion, materializedAt: now.toISOString() } };
};
const corrected = (orgVersion: number, followsAdoptionId: string): CopyCorrected => ({
  type: 'CopyCorrected',
  data: {
    requestId: 'r',
    organizationId: 'o',
    slotId: 's',
    sourceResourceId: 'src',
    orgResourceId: 'copy',
    orgVersion,
    followsAdoptionId,
    correctedAt: now.toISOString(),
    sealedData: `fixed-v${orgVersion}`,
  },
});

const deleted = (adoptionId: string): CopyDeleted => ({
  type: 'CopyDeleted',
  data: {
    requestId: 'r',
    organizationId: 'o',
    slotId: 's',
    sourceResourceId: 'src',
    orgResourceId: 'copy',
    adoptionId,
    deletedAt: now.toISOString(),
  },
});

describe('copy chain decisions (keep, correct and delete)', () => {
  it('a long chain stays small as a command holds it: the newest keep whole, the older ones as ranges of versions', () => {
    // 200 keeps of 4 KiB sealed each would be 800 KiB, past what the fold cache keeps (256 KiB), and
    // so read and folded whole before every command on the chain.
    const large = (v: number): CopyKept => ({ type: 'CopyKept', data: { ...kept(v, v).data, sealedData: 'x'.repeat(4096) } });
    const state = Array.from({ length: 200 }, (_, i) => large(i + 1)).reduce(evolveChain, emptyChain);
    expect([state.keeps, state.lastKeep?.sourceVersion]).to.deep.equal([[[1, 200]], 200]);
    expect(JSON.stringify(state).length).to.be.below(20_000);
  });

  it('a chain of 10,000 keeps with every hundredth version skipped holds 100 ranges, and knows each version', () => {
    const versions = Array.from({ length: 10_000 }, (_, i) => i + 1).filter((v) => v % 100 !== 0);
    const state = versions.map((v) => kept(v, v)).reduce(evolveChain, emptyChain);
    expect(state.keeps).to.have.length(100);
    expect(JSON.stringify(state.keeps).length).to.be.below(2_000);
    // Version 5,000 was skipped, so it is kept as the chain's next version; 4,999 was kept already.
    specOf(
      chainDecider,
      'KeepCopy',
    )(...versions.map((v) => kept(v, v)))
      .when(keep(5_000))
      .then(kept(5_000, 10_000));
    specOf(
      chainDecider,
      'KeepCopy',
    )(...versions.map((v) => kept(v, v)))
      .when(keep(4_999))
      .then();
  });

  describe('keep', () => {
    const given = specOf(chainDecider, 'KeepCopy');
    it('the first keep of a record is orgVersion 1', () => given().when(keep(2)).then(kept(2, 1)));
    it('a source version already kept is not kept again', () => given(kept(2, 1)).when(keep(2)).then());
    it('a newer source version is the next chain version, after corrections too', () =>
      given(kept(2, 1), corrected(2, a(2)))
        .when(keep(3))
        .then(kept(3, 3)));
    it('a chain the organization deleted keeps nothing more, nor one whose key a deletion under way erased', () => {
      given(kept(2, 1), deleted(a(2)))
        .when(keep(3))
        .thenRefused('adoption_refused', /deleted its copy/);
      given(kept(2, 1))
        .when({ ...keep(3), content: null })
        .thenRefused('adoption_refused', /deleted its copy/);
    });
  });

  describe('correct', () => {
    const given = specOf(chainDecider, 'CorrectCopy');
    const standing = { connection: 'active', granted: true, resolves: true, eligible: true } as const;
    const fix = (expectedOrgVersion: number, expectedSourceVersion = 2, newestSourceVersion = 2) => ({
      keyWarm: true,
      slotKeeps: true,
      recordNamed: true,
      expectedOrgVersion,
      expectedSourceVersion,
      newestSourceVersion,
      consent: standing,
      invalid: null,
      now,
      sealedData: `fixed-v${expectedOrgVersion + 1}` as string | null,
    });
    it("appends the organization's revision as the next version, following the newest keep", () =>
      given(kept(2, 1))
        .when(fix(1))
        .then(corrected(2, a(2))));
    it('a stale expectedOrgVersion is a version_conflict', () =>
      given(kept(2, 1), corrected(2, a(2)))
        .when(fix(1))
        .thenRefused('version_conflict'));
    it('a source version the person has moved past is a version_conflict: keep it first', () =>
      given(kept(2, 1))
        .when(fix(1, 2, 3))
        .thenRefused('version_conflict', /published version 3/));
    it('once consent lapsed, the source is the newest version the organization holds, and no newer one is named (contract 10.2)', () => {
      const revoked = { ...fix(1, 2, 5), consent: { ...standing, connection: 'revoked' as const } };
      given(kept(2, 1))
        .when(revoked)
        .then(corrected(2, a(2)));
      given(kept(2, 1))
        .when({ ...revoked, expectedSourceVersion: 5 })
        .thenRefused('version_conflict', /^the organization holds version 2 of this record; correct that version$/);
      given(kept(2, 1))
        .when({ ...fix(1, 2, 5), consent: { ...standing, granted: false } })
        .then(corrected(2, a(2)));
    });
    it('with the key cold it is 423 org_sealed, and on a slot without the keep verb 403 adoption_refused, before anything else', () => {
      given(kept(2, 1), deleted(a(2)))
        .when({ ...fix(1), keyWarm: false })
        .thenRefused('org_sealed');
      given(kept(2, 1))
        .when({ ...fix(1), slotKeeps: false, recordNamed: false })
        .thenRefused('adoption_refused', /keep/);
      given()
        .when({ ...fix(1), recordNamed: false })
        .thenRefused('invalid_request', /sourceResourceId is required/);
    });
    it("data off the copy's schema is invalid_request", () =>
      given(kept(2, 1))
        .when({ ...fix(1), invalid: 'must have givenName' })
        .thenRefused('invalid_request', /givenName/));
    it('a record with no kept copy, or a kept file, is adoption_refused', () => {
      given().when(fix(0)).thenRefused('adoption_refused');
      const file = kept(1, 1);
      given({ ...file, data: { ...file.data, resourceType: 'file' } })
        .when(fix(1, 1, 1))
        .thenRefused('adoption_refused', /file/);
    });
    it('a deleted chain is not found, and one whose key was erased by a deletion under way is a conflict (contract 10.2)', () => {
      given(kept(2, 1), deleted(a(2)))
        .when(fix(1))
        .thenRefused('not_found');
      given(kept(2, 1))
        .when({ ...fix(1), sealedData: null })
        .thenRefused('conflict', /being deleted/);
    });
  });

  describe('delete (R-ERAS-02)', () => {
    const given = specOf(chainDecider, 'DeleteCopy');
    const del = (sourceVersion: number, adoptionId = a(sourceVersion)) => ({ adoptionId, sourceVersion, now });
    it('any adoption kept into the chain deletes the whole chain, corrections included', () =>
      given(kept(1, 1), corrected(2, a(1)), kept(2, 3))
        .when(del(1))
        .then(deleted(a(1))));
    it('a chain already deleted, or an adoption it never kept, is not_found', () => {
      given(kept(1, 1), deleted(a(1)))
        .when(del(1))
        .thenRefused('not_found');
      given(kept(1, 1)).when(del(9)).thenRefused('not_found');
      given(kept(1, 1), kept(2, 2))
        .when(del(1, a(2)))
        .thenRefused('not_found');
      given(kept(1, 1))
        .when(del(1, adoptionIdOf('r', 's', 'other', 1)))
        .thenRefused('not_found');
      given().when(del(1)).thenRefused('not_found');
    });
  });
});
