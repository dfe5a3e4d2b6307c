import { entityDecider } from '../../../src/commands/entities/entity-decider.js';
import type { EntityCreated, EntityMemberRemoved, EntityMemberSet, EntityRole } from '../../../src/events/entity-events.js';
import { specOf } from '../../support/given.js';

const entityId = 'e1';
const ann = 'ann@example.com';
const bob = 'bob@example.com';
const cem = 'cem@example.com';
const stranger = 'eve@example.com';

const created: EntityCreated = { type: 'EntityCreated', data: { entityId, name: 'Acme GmbH', createdBy: 'id-ann', managerEmail: ann } };
const memberSet = (email: string, role: EntityRole): EntityMemberSet => ({ type: 'EntityMemberSet', data: { entityId, email, role } });
const memberRemoved = (email: string): EntityMemberRemoved => ({ type: 'EntityMemberRemoved', data: { entityId, email } });

const setMember = (actorEmail: string, email: string, role: EntityRole) => ({ entityId, actorEmail, email, role });
const removeMember = (actorEmail: string, email: string) => ({ entityId, actorEmail, email });

describe('legal entity decisions (contract 5 EntityMutation)', () => {
  describe('create', () => {
    const given = specOf(entityDecider, 'CreateEntity');
    const cmd = { entityId, name: 'Acme GmbH', createdBy: 'id-ann', managerEmail: ann };

    it("makes the caller's login address the first MANAGER", () => given().when(cmd).then(created));

    it('records the name trimmed', () =>
      given()
        .when({ ...cmd, name: '  Acme GmbH \t' })
        .then(created));

    it('refuses a blank or an over-long name as invalid_request', () => {
      given()
        .when({ ...cmd, name: ' \t ' })
        .thenRefused('invalid_request', /blank/);
      given()
        .when({ ...cmd, name: 'x'.repeat(201) })
        .thenRefused('invalid_request', /200/);
      given()
        .when({ ...cmd, name: 'x'.repeat(200) })
        .then({ type: 'EntityCreated', data: { ...cmd, name: 'x'.repeat(200) } });
    });

    it('refuses an id that is taken', () => given(created).when(cmd).thenRefused('conflict'));
  });

  describe('setMember', () => {
    const given = specOf(entityDecider, 'SetEntityMember');

    it('a MANAGER adds a member by address, whether or not it has an account', () =>
      given(created)
        .when(setMember(ann, bob, 'MEMBER'))
        .then(memberSet(bob, 'MEMBER')));

    it('a MANAGER changes a role, both ways', () => {
      given(created, memberSet(bob, 'MEMBER'))
        .when(setMember(ann, bob, 'MANAGER'))
        .then(memberSet(bob, 'MANAGER'));
      given(created, memberSet(bob, 'MANAGER'))
        .when(setMember(ann, bob, 'MEMBER'))
        .then(memberSet(bob, 'MEMBER'));
    });

    it('the same role again changes nothing', () => {
      given(created, memberSet(bob, 'MEMBER'))
        .when(setMember(ann, bob, 'MEMBER'))
        .then();
      given(created)
        .when(setMember(ann, ann, 'MANAGER'))
        .then();
    });

    it('a MANAGER may demote themselves while another MANAGER remains', () =>
      given(created, memberSet(bob, 'MANAGER'))
        .when(setMember(ann, ann, 'MEMBER'))
        .then(memberSet(ann, 'MEMBER')));

    it('refuses demoting the last MANAGER with conflict', () => {
      given(created)
        .when(setMember(ann, ann, 'MEMBER'))
        .thenRefused('conflict', /at least one MANAGER/);
      given(created, memberSet(bob, 'MANAGER'), memberSet(ann, 'MEMBER'))
        .when(setMember(bob, bob, 'MEMBER'))
        .thenRefused('conflict');
    });

    it('a MEMBER is forbidden: they can see the entity', () =>
      given(created, memberSet(bob, 'MEMBER'))
        .when(setMember(bob, cem, 'MEMBER'))
        .thenRefused('forbidden'));

    it('a non-member, a removed member and an unknown entity all answer not_found alike', () => {
      given(created)
        .when(setMember(stranger, stranger, 'MANAGER'))
        .thenRefused('not_found', /^no such legal entity$/);
      given(created, memberSet(bob, 'MANAGER'), memberRemoved(bob))
        .when(setMember(bob, bob, 'MANAGER'))
        .thenRefused('not_found', /^no such legal entity$/);
      given()
        .when(setMember(ann, bob, 'MEMBER'))
        .thenRefused('not_found', /^no such legal entity$/);
    });

    it('a demoted MANAGER can no longer change members', () =>
      given(created, memberSet(bob, 'MANAGER'), memberSet(ann, 'MEMBER'))
        .when(setMember(ann, cem, 'MEMBER'))
        .thenRefused('forbidden'));
  });

  describe('removeMember', () => {
    const given = specOf(entityDecider, 'RemoveEntityMember');

    it('a MANAGER removes a member or another MANAGER', () => {
      given(created, memberSet(bob, 'MEMBER')).when(removeMember(ann, bob)).then(memberRemoved(bob));
      given(created, memberSet(bob, 'MANAGER')).when(removeMember(ann, bob)).then(memberRemoved(bob));
    });

    it('a MANAGER may remove themselves while another MANAGER remains', () =>
      given(created, memberSet(bob, 'MANAGER')).when(removeMember(ann, ann)).then(memberRemoved(ann)));

    it('refuses removing the last MANAGER with conflict, also when a MEMBER remains', () => {
      given(created)
        .when(removeMember(ann, ann))
        .thenRefused('conflict', /at least one MANAGER/);
      given(created, memberSet(bob, 'MEMBER')).when(removeMember(ann, ann)).thenRefused('conflict');
    });

    it('an address that is no member changes nothing', () => {
      given(created).when(removeMember(ann, stranger)).then();
      given(created, memberSet(bob, 'MEMBER'), memberRemoved(bob)).when(removeMember(ann, bob)).then();
    });

    it('a MEMBER is forbidden, also for their own address', () => {
      given(created, memberSet(bob, 'MEMBER'), memberSet(cem, 'MEMBER')).when(removeMember(bob, cem)).thenRefused('forbidden');
      given(created, memberSet(bob, 'MEMBER')).when(removeMember(bob, bob)).thenRefused('forbidden');
      given(created, memberSet(bob, 'MEMBER')).when(removeMember(bob, ann)).thenRefused('forbidden');
    });

    it('a non-member, a removed MANAGER and an unknown entity all answer not_found alike', () => {
      given(created)
        .when(removeMember(stranger, ann))
        .thenRefused('not_found', /^no such legal entity$/);
      given(created, memberSet(bob, 'MANAGER'), memberRemoved(bob))
        .when(removeMember(bob, ann))
        .thenRefused('not_found', /^no such legal entity$/);
      given()
        .when(removeMember(ann, ann))
        .thenRefused('not_found', /^no such legal entity$/);
    });
  });
});
