import { expect } from 'chai';
import { refuse } from '../../../src/commands/refusal.js';
import type { NoticeNewVersion } from '../../../src/commands/proposals/notice-new-version.js';
import type { PendAdoption } from '../../../src/commands/requests/pend-adoption.js';
import type { DiscardLapsed } from '../../../src/commands/requests/discard-adoption.js';
import type { UseProposal } from '../../../src/commands/proposals/use-proposal.js';
import { evolveRequest, noRequest } from '../../../src/commands/requests/request-state.js';
import { adoptionIdOf } from '../../../src/events/copy-events.js';
import type { ProposalCloseReason, RequestEvent } from '../../../src/events/request-events.js';
import { evaluateState } from '../../../src/requests/request-status.js';
import { consentLapse } from '../../../src/commands/requests/consent-gate.js';
import { ParticipantAliases } from '../../../src/requests/participant-alias.js';
import { retentionMs } from '../../../src/manifests/retention.js';
import { specOf } from '../../support/given.js';
import { requestDecider } from '../../../src/commands/requests/request-decider.js';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const DAY = 86_400_000;
const id = '11111111-1111-4111-8111-111111111111';
const SLOT = '22222222-2222-4222-8222-222222222222';
const ENTITY = '33333333-3333-4333-8333-333333333333';
const own = (resourceId: string) => ({ resourceId, entityId: null });

const sent: RequestEvent = {
  type: 'RequestSent',
  data: {
    requestId: id,
    organizationId: 'org',
    manifestId: 'm',
    manifestVersion: 2,
    recipientEmail: 'ann@example.com',
    invitationExpiresAt: at(7 * DAY).toISOString(),
    initiatedBy: 'org',
    initiatingClientId: null,
  },
};
const accepted: RequestEvent = {
  type: 'RequestAccepted',
  data: { requestId: id, retention: 'P30D', retentionMs: 30 * DAY, acceptedAt: at(DAY).toISOString() },
};
const granted: RequestEvent = { type: 'SlotGranted', data: { requestId: id, slotId: SLOT, records: [own('r1')] } };
const suspended: RequestEvent = { type: 'RequestSuspended', data: { requestId: id } };
const revoked: RequestEvent = { type: 'RequestRevoked', data: { requestId: id } };
const cancelled: RequestEvent = { type: 'RequestCancelled', data: { requestId: id } };
const rejected: RequestEvent = { type: 'RequestRejected', data: { requestId: id } };

/** A keep of version `sourceVersion` of r1 asked for while the key was cold, and the event that pends it. */
const pend = (sourceVersion: number, chainDeleted = false): PendAdoption => ({
  adoption: {
    requestId: id,
    organizationId: 'org',
    adoptionId: adoptionIdOf(id, SLOT, 'r1', sourceVersion),
    slotId: SLOT,
    sourceResourceId: 'r1',
    sourceVersion,
    resourceType: 'document',
    participant: null,
    adoptedAt: at(2 * DAY).toISOString(),
  },
  chainDeleted,
});
const pended = (sourceVersion: number): RequestEvent => ({ type: 'AdoptionPended', data: pend(sourceVersion).adoption });

describe('request deciders (spec 3.1, contract 4, 5, 8)', () => {
  describe('send', () => {
    const given = specOf(requestDecider, 'SendRequest');
    const cmd = {
      requestId: id,
      organizationId: 'org',
      manifestId: 'm',
      manifestVersion: 2,
      recipientEmail: 'ann@example.com',
      initiatedBy: 'org' as const,
      initiatingClientId: null,
      now: at(0),
    };
    it('pending with the default 7-day window, the newest version pinned', () =>
      given()
        .when({ ...cmd, invitationExpiresAt: null })
        .then(sent));
    it('takes a window up to 90 days; refuses a past or longer one', () => {
      given()
        .when({ ...cmd, invitationExpiresAt: at(90 * DAY).toISOString() })
        .then({ ...sent, data: { ...sent.data, invitationExpiresAt: at(90 * DAY).toISOString() } });
      given()
        .when({ ...cmd, invitationExpiresAt: at(90 * DAY + 1).toISOString() })
        .thenRefused('invalid_request', /90 days/);
      given()
        .when({ ...cmd, invitationExpiresAt: at(0).toISOString() })
        .thenRefused('invalid_request', /future/);
    });
    it('an existing id is a conflict', () =>
      given(sent)
        .when({ ...cmd, invitationExpiresAt: null })
        .thenRefused('conflict'));
  });

  describe('cancel', () => {
    const given = specOf(requestDecider, 'CancelRequest');
    it('pending → rejected_by_sender', () =>
      given(sent)
        .when({ now: at(1) })
        .then(cancelled));
    it('any other state is a conflict; unknown is not found', () => {
      given(sent, accepted)
        .when({ now: at(DAY) })
        .thenRefused('conflict', /active/);
      given(sent)
        .when({ now: at(7 * DAY) })
        .thenRefused('conflict', /expired/);
      given(sent, cancelled)
        .when({ now: at(1) })
        .thenRefused('conflict');
      given()
        .when({ now: at(1) })
        .thenRefused('not_found');
    });
  });

  describe('accept', () => {
    const given = specOf(requestDecider, 'AcceptRequest');
    const cmd = {
      now: at(DAY),
      retention: 'P30D',
      retentionMs: 30 * DAY,
      grants: [{ slotId: SLOT, records: [own('r1')], multiple: false }],
      requiredSlots: [],
    };
    it('pending → active with its grants', () => given(sent).when(cmd).then(accepted, granted));
    it('§11: without a grant for every required slot, invalid_request (BAD_USER_INPUT) naming the slots without one', () => {
      const OTHER = '44444444-4444-4444-8444-444444444444';
      const requiredSlots = [
        { slotId: SLOT, label: 'Full name' },
        { slotId: OTHER, label: 'Passport' },
      ];
      given(sent)
        .when({ ...cmd, requiredSlots })
        .thenRefused('invalid_request', new RegExp(`required slot; none for "Passport" \\(${OTHER}\\)$`));
      given(sent)
        .when({ ...cmd, grants: [], requiredSlots })
        .thenRefused('invalid_request', /"Full name" .*"Passport"/);
      given(sent)
        .when({ ...cmd, requiredSlots: [requiredSlots[0]!] })
        .then(accepted, granted);
    });
    it('expired, cancelled, rejected or already accepted invitations are a CONFLICT', () => {
      given(sent)
        .when({ ...cmd, now: at(7 * DAY) })
        .thenRefused('conflict', /expired/);
      given(sent, cancelled)
        .when(cmd)
        .thenRefused('conflict', /rejected_by_sender/);
      given(sent, rejected)
        .when(cmd)
        .thenRefused('conflict', /rejected_by_recipient/);
      given(sent, accepted)
        .when(cmd)
        .thenRefused('conflict', /active/);
    });
    it('a grant the vault check refused counts only once the invitation is open: otherwise the CONFLICT answers', () => {
      const unknownResource = refuse('not_found', 'no such resource');
      given(sent)
        .when({ ...cmd, grants: unknownResource })
        .thenRefused('not_found', /no such resource/);
      given(sent, accepted)
        .when({ ...cmd, grants: unknownResource })
        .thenRefused('conflict', /active/);
      given(sent)
        .when({ ...cmd, now: at(7 * DAY), grants: unknownResource })
        .thenRefused('conflict', /expired/);
    });
    it('a non-multiple slot takes one resource per party', () => {
      given(sent)
        .when({ ...cmd, grants: [{ slotId: SLOT, records: [own('r1'), own('r2')], multiple: false }] })
        .thenRefused('invalid_request', /one resource per party/);
      const two = [own('r1'), { resourceId: 'r2', entityId: ENTITY }];
      given(sent)
        .when({ ...cmd, grants: [{ slotId: SLOT, records: two, multiple: false }] })
        .then(accepted, { type: 'SlotGranted', data: { requestId: id, slotId: SLOT, records: two } });
    });
  });

  describe('reject', () => {
    const given = specOf(requestDecider, 'RejectRequest');
    it('pending → rejected_by_recipient', () =>
      given(sent)
        .when({ now: at(1) })
        .then(rejected));
    it('otherwise a conflict', () =>
      given(sent, accepted)
        .when({ now: at(DAY) })
        .thenRefused('conflict'));
  });

  describe('grant', () => {
    const given = specOf(requestDecider, 'GrantSlot');
    it("adds to the slot's records on an active request", () =>
      given(sent, accepted)
        .when({ now: at(DAY), slotId: SLOT, records: [own('r1')], multiple: true })
        .then(granted));
    it('merges with what the slot holds; a repeat appends nothing', () => {
      given(sent, accepted, granted)
        .when({ now: at(DAY), slotId: SLOT, records: [own('r2')], multiple: true })
        .then({ type: 'SlotGranted', data: { requestId: id, slotId: SLOT, records: [own('r1'), own('r2')] } });
      given(sent, accepted, granted)
        .when({ now: at(DAY), slotId: SLOT, records: [own('r1')], multiple: false })
        .then();
    });
    it('a second resource of the same party on a non-multiple slot is refused', () =>
      given(sent, accepted, granted)
        .when({ now: at(DAY), slotId: SLOT, records: [own('r2')], multiple: false })
        .thenRefused('invalid_request', /one resource per party/));
    it('only on an active request', () => {
      given(sent)
        .when({ now: at(1), slotId: SLOT, records: [own('r1')], multiple: true })
        .thenRefused('conflict', /pending/);
      given(sent, accepted, suspended)
        .when({ now: at(DAY), slotId: SLOT, records: [own('r1')], multiple: true })
        .thenRefused('conflict', /suspended/);
    });
  });

  describe('withdraw', () => {
    const given = specOf(requestDecider, 'WithdrawSlot');
    it('takes the slot back', () =>
      given(sent, accepted, granted)
        .when({ now: at(DAY), slotId: SLOT })
        .then({ type: 'SlotWithdrawn', data: { requestId: id, slotId: SLOT } }));
    it('a slot not granted: nothing to do', () =>
      given(sent, accepted)
        .when({ now: at(DAY), slotId: SLOT })
        .then());
    it('not on a pending or revoked request', () => {
      given(sent)
        .when({ now: at(1), slotId: SLOT })
        .thenRefused('conflict');
      given(sent, accepted, granted, revoked)
        .when({ now: at(DAY), slotId: SLOT })
        .thenRefused('conflict', /revoked/);
    });
  });

  describe('an app approved on the hosted consent page (contract §13, §14)', () => {
    it('an active connection is given to the app: AppAuthorized, which has its consent receipt', () =>
      specOf(requestDecider, 'AuthorizeApp')(sent, accepted)
        .when({ clientId: 'app-1', now: at(DAY) })
        .then({ type: 'AppAuthorized', data: { requestId: id, clientId: 'app-1' } }));
    it('a pending, suspended or revoked one is not', () => {
      for (const given of [[sent], [sent, accepted, suspended], [sent, accepted, revoked]])
        specOf(
          requestDecider,
          'AuthorizeApp',
        )(...given)
          .when({ clientId: 'app-1', now: at(DAY) })
          .thenRefused('conflict', /give an app/);
    });
  });

  describe('revoke, suspend, resume', () => {
    it('active → suspended → active; active or suspended → revoked, for good', () => {
      specOf(requestDecider, 'SuspendRequest')(sent, accepted)
        .when({ now: at(DAY) })
        .then(suspended);
      specOf(requestDecider, 'ResumeRequest')(sent, accepted, suspended)
        .when({ now: at(DAY) })
        .then({ type: 'RequestResumed', data: { requestId: id } });
      specOf(requestDecider, 'RevokeRequest')(sent, accepted)
        .when({ now: at(DAY) })
        .then(revoked);
      specOf(requestDecider, 'RevokeRequest')(sent, accepted, suspended)
        .when({ now: at(DAY) })
        .then(revoked);
    });
    it('refused from the wrong state or past retention', () => {
      specOf(
        requestDecider,
        'SuspendRequest',
      )(sent)
        .when({ now: at(1) })
        .thenRefused('conflict', /pending/);
      specOf(requestDecider, 'ResumeRequest')(sent, accepted)
        .when({ now: at(DAY) })
        .thenRefused('conflict', /active/);
      specOf(requestDecider, 'RevokeRequest')(sent, accepted, revoked)
        .when({ now: at(DAY) })
        .thenRefused('conflict', /revoked/);
      specOf(requestDecider, 'SuspendRequest')(sent, accepted)
        .when({ now: at(31 * DAY) })
        .thenRefused('conflict', /expired/);
    });
  });
});

describe('update proposals on the request (R-PROP-01)', () => {
  const given = specOf(requestDecider, 'NoticeNewVersion');
  const notice = (newVersion: number, resourceId = 'r1'): NoticeNewVersion => ({
    now: at(2 * DAY),
    proposalId: `p${newVersion}-${resourceId}`,
    slotId: SLOT,
    resourceId,
    newVersion,
    participant: null,
  });
  const opened = (newVersion: number, resourceId = 'r1'): RequestEvent => {
    const { now, ...rest } = notice(newVersion, resourceId);
    return { type: 'ProposalOpened', data: { requestId: id, organizationId: 'org', ...rest, proposedAt: now.toISOString() } };
  };
  const closed = (newVersion: number, reason: ProposalCloseReason, resourceId = 'r1'): RequestEvent => ({
    type: 'ProposalClosed',
    data: { requestId: id, proposalId: `p${newVersion}-${resourceId}`, reason, closedAt: at(2 * DAY).toISOString() },
  });

  it('a new version opens a proposal; the notice run again opens nothing', () => {
    given(sent, accepted, granted).when(notice(2)).then(opened(2));
    given(sent, accepted, granted, opened(2)).when(notice(2)).then();
  });

  it('a newer version supersedes the open proposal of that record; another record has its own', () => {
    given(sent, accepted, granted, opened(2)).when(notice(3)).then(closed(2, 'superseded'), opened(3));
    given(sent, accepted, granted, opened(2)).when(notice(2, 'r2')).then(opened(2, 'r2'));
  });

  it('once a proposal was decided, its notice run late opens nothing, nor does one of an older version; a newer one does', () => {
    // Version 2's reaction ran after version 3's: it must not propose what the organization has gone past.
    const decided = [sent, accepted, granted, opened(3), closed(3, 'adopted')];
    given(...decided)
      .when(notice(3))
      .then();
    given(...decided)
      .when(notice(2))
      .then();
    given(...decided)
      .when(notice(4))
      .then(opened(4));
  });

  it('a member decides an open proposal: adopted or dismissed closes it; adopting one no longer open is a conflict, dismissing it changes nothing (R-PROP-04, R-PROP-05)', () => {
    const decide = specOf(requestDecider, 'DecideProposal');
    const open = [sent, accepted, granted, opened(2)];
    decide(...open)
      .when({ now: at(2 * DAY), proposalId: 'p2-r1', decision: 'adopted' })
      .then(closed(2, 'adopted'));
    decide(...open)
      .when({ now: at(2 * DAY), proposalId: 'p2-r1', decision: 'dismissed' })
      .then(closed(2, 'dismissed'));
    decide(...open, closed(2, 'dismissed'))
      .when({ now: at(2 * DAY), proposalId: 'p2-r1', decision: 'adopted' })
      .thenRefused('conflict', /no longer open/);
    decide(...open, closed(2, 'adopted'))
      .when({ now: at(2 * DAY), proposalId: 'p2-r1', decision: 'dismissed' })
      .then();
  });

  it("a keep at or past an open proposal's version closes it as kept; one below it, or of another record, does not (R-KEEP-13)", () => {
    const keepClose = specOf(requestDecider, 'CloseKeptProposals');
    const open = [sent, accepted, granted, opened(3), opened(2, 'r2')];
    keepClose(...open)
      .when({ now: at(2 * DAY), slotId: SLOT, resourceId: 'r1', keptVersion: 3 })
      .then(closed(3, 'kept'));
    keepClose(...open)
      .when({ now: at(2 * DAY), slotId: SLOT, resourceId: 'r1', keptVersion: 2 })
      .then();
  });

  it('a request that had 5,000 proposals holds one entry per record, not one per proposal', () => {
    const history: RequestEvent[] = [sent, accepted, granted];
    for (let v = 2; v <= 5001; v++) history.push(...(v > 2 ? [closed(v - 1, 'superseded')] : []), opened(v));
    const state = history.reduce(evolveRequest, noRequest);
    expect([...state.proposed]).to.deep.equal([[`${SLOT}/r1`, 5001]]);
    expect([...state.open.keys()]).to.deep.equal(['p5001-r1']);
  });
});

describe('keeps pended on the request while the key is cold (R-KEEP-08)', () => {
  const given = specOf(requestDecider, 'PendAdoption');

  it('each version of a record is pended once, however often its keep is asked for', () => {
    given(sent, accepted, granted).when(pend(2)).then(pended(2));
    given(sent, accepted, granted, pended(2)).when(pend(2)).then();
    given(sent, accepted, granted, pended(2), pended(4)).when(pend(3)).then(pended(3));
  });

  it('a record whose copy chain the organization deleted pends nothing (R-ERAS-02)', () =>
    given(sent, accepted, granted)
      .when(pend(2, true))
      .thenRefused('adoption_refused', /deleted its copy/));

  it('a record pended version after version 5,000 times holds one range', () => {
    const history: RequestEvent[] = [sent, accepted, granted];
    for (let v = 1; v <= 5000; v++) history.push(pended(v));
    expect([...history.reduce(evolveRequest, noRequest).pended]).to.deep.equal([[`${SLOT}/r1`, [[1, 5000]]]]);
  });
});

describe('pending keeps at their drain: the consent gate discards the lapsed (contract 10.1)', () => {
  const given = specOf(requestDecider, 'DiscardLapsed');
  const drain = (overrides: Partial<DiscardLapsed> = {}): DiscardLapsed => ({
    now: at(3 * DAY),
    adoptionId: adoptionIdOf(id, SLOT, 'r1', 2),
    slotId: SLOT,
    sourceResourceId: 'r1',
    sourceVersion: 2,
    resolves: true,
    eligible: true,
    ...overrides,
  });
  const discarded = (reason: string, now = at(3 * DAY)): RequestEvent => ({
    type: 'AdoptionDiscarded',
    data: {
      requestId: id,
      organizationId: 'org',
      adoptionId: adoptionIdOf(id, SLOT, 'r1', 2),
      slotId: SLOT,
      sourceResourceId: 'r1',
      sourceVersion: 2,
      reason: reason as 'not_granted',
      discardedAt: now.toISOString(),
    },
  });
  const withdrawn: RequestEvent = { type: 'SlotWithdrawn', data: { requestId: id, slotId: SLOT } };

  it('while consent stands on the request it is not discarded: the drain keeps it', () =>
    given(sent, accepted, granted, pended(2))
      .when(drain())
      .thenRefused('conflict', /consent stands/));
  it('revoked, suspended or past retention: connection_inactive', () => {
    given(sent, accepted, granted, pended(2), revoked).when(drain()).then(discarded('connection_inactive'));
    given(sent, accepted, granted, pended(2), suspended).when(drain()).then(discarded('connection_inactive'));
    given(sent, accepted, granted, pended(2))
      .when(drain({ now: at(31 * DAY) }))
      .then(discarded('connection_inactive', at(31 * DAY)));
  });
  it("the slot withdrawn: not_granted; the record gone: source_unavailable; the party no longer the recipient's: participant_ineligible", () => {
    given(sent, accepted, granted, pended(2), withdrawn).when(drain()).then(discarded('not_granted'));
    given(sent, accepted, granted, pended(2))
      .when(drain({ resolves: false }))
      .then(discarded('source_unavailable'));
    given(sent, accepted, granted, pended(2))
      .when(drain({ eligible: false }))
      .then(discarded('participant_ineligible'));
  });
  it('a keep no longer pended (discarded already, or never) is left alone; once discarded, it may be pended again', () => {
    given(sent, accepted, granted, pended(2), revoked, discarded('connection_inactive')).when(drain()).then();
    given(sent, accepted, granted, revoked).when(drain()).then();
    const state = [sent, accepted, granted, pended(2), discarded('source_unavailable')].reduce(evolveRequest, noRequest);
    expect([...state.pended]).to.deep.equal([[`${SLOT}/r1`, []]]);
  });
});

describe('a proposal used: candidate read or adopt, through the consent gate (R-PROP-03, R-PROP-04, R-CONS-03)', () => {
  const given = specOf(requestDecider, 'UseProposal');
  const receipt = {
    requestId: id,
    organizationId: 'org',
    recipientEmail: 'ann@example.com',
    resourceId: 'r1',
    version: 2,
    clientId: null,
    readAt: at(3 * DAY).toISOString(),
  };
  /** A use decided on the facts read at its moment: by default a warm key, an active connection granting r1, and an open proposal. */
  const use = (overrides: Partial<UseProposal> = {}): UseProposal => ({
    now: at(3 * DAY),
    requestId: id,
    proposalId: 'p2',
    keyWarm: true,
    connection: 'active',
    granted: true,
    resolves: true,
    eligible: true,
    open: true,
    receipt,
    ...overrides,
  });
  const withdrawnProposal: RequestEvent = {
    type: 'ProposalClosed',
    data: { requestId: id, proposalId: 'p2', reason: 'withdrawn', closedAt: at(3 * DAY).toISOString() },
  };

  it('a candidate read writes its receipt; an adopt writes nothing here (its keep and decision follow)', () => {
    given().when(use()).then({ type: 'ReceiptWritten', data: receipt });
    given()
      .when(use({ receipt: null }))
      .then();
  });
  it('423 with the key cold comes first, then 403 on an inactive connection, then 409 once decided', () => {
    given()
      .when(use({ keyWarm: false, connection: 'revoked' }))
      .thenRefused('org_sealed');
    given()
      .when(use({ connection: 'revoked' }))
      .thenRefused('adoption_refused', /revoked/);
    given()
      .when(use({ connection: 'suspended', open: false }))
      .thenRefused('adoption_refused', /suspended/);
    given()
      .when(use({ open: false }))
      .thenRefused('conflict');
  });
  it('a party the recipient no longer answers for is 403 participant_ineligible, and the proposal stays open', () =>
    given()
      .when(use({ eligible: false }))
      .thenRefused('participant_ineligible'));
  it('a record no longer resolving withdraws the open proposal; a slot no longer granted is adoption_refused once it closed', () => {
    given()
      .when(use({ resolves: false }))
      .then(withdrawnProposal);
    given()
      .when(use({ granted: false }))
      .then(withdrawnProposal);
    given()
      .when(use({ granted: false, open: false }))
      .thenRefused('adoption_refused', /no longer granted/);
  });
});

describe('request state and record reason at read time (spec 3.1, 3.3; contract 8)', () => {
  const base = { phase: 'pending' as const, invitationExpiresAt: at(7 * DAY).toISOString(), acceptedAt: null, retentionMs: null };
  const active = { ...base, phase: 'active' as const, acceptedAt: at(DAY).toISOString(), retentionMs: 30 * DAY };
  it('pending until the window ends, then expired', () => {
    expect(evaluateState(base, at(7 * DAY - 1))).to.equal('pending');
    expect(evaluateState(base, at(7 * DAY))).to.equal('expired');
  });
  it('active and suspended read expired past retention; revoked stays revoked', () => {
    expect(evaluateState(active, at(31 * DAY - 1))).to.equal('active');
    expect(evaluateState(active, at(31 * DAY))).to.equal('expired');
    expect(evaluateState({ ...active, phase: 'suspended' }, at(31 * DAY))).to.equal('expired');
    expect(evaluateState({ ...active, phase: 'revoked' }, at(31 * DAY))).to.equal('revoked');
    expect(evaluateState({ ...base, phase: 'cancelled' }, at(0))).to.equal('rejected_by_sender');
    expect(evaluateState({ ...base, phase: 'rejected' }, at(0))).to.equal('rejected_by_recipient');
  });
  it('the consent gate names one lapse: connection_inactive, then not_granted, then source_unavailable, then participant_ineligible', () => {
    const standing = { connection: 'active', granted: true, resolves: true, eligible: true } as const;
    expect(consentLapse({ connection: 'suspended', granted: false, resolves: false, eligible: false })).to.equal('connection_inactive');
    expect(consentLapse({ ...standing, granted: false, resolves: false, eligible: false })).to.equal('not_granted');
    expect(consentLapse({ ...standing, resolves: false, eligible: false })).to.equal('source_unavailable');
    expect(consentLapse({ ...standing, eligible: false })).to.equal('participant_ineligible');
    expect(consentLapse(standing)).to.equal(null);
  });
  it('retention durations in ms', () => {
    expect(retentionMs('PT2S')).to.equal(2000);
    expect(retentionMs('P1DT1H')).to.equal(DAY + 3_600_000);
    expect(retentionMs('P1Y2W')).to.equal(379 * DAY);
  });
  it('aliases: pairwise, stable for one key, never the party id', () => {
    const key = Buffer.alloc(32, 7);
    const a = new ParticipantAliases(key);
    expect(a.aliasFor('org1', ENTITY)).to.equal(new ParticipantAliases(Buffer.alloc(32, 7)).aliasFor('org1', ENTITY));
    expect(a.aliasFor('org1', ENTITY)).to.not.equal(a.aliasFor('org2', ENTITY));
    expect(a.aliasFor('org1', ENTITY)).to.not.include(ENTITY);
  });
});
