import type { Schemas } from '@dss/sdk';
import { useState, type FormEvent } from 'react';
import { Loaded, Outcome, useAction, useLoad } from '../../actions';
import type { Answer } from '../../api';
import { day } from '../../words';
import type { OrgSession } from './org-session';
import { PermissionBoxes, permissionWords, type Permission } from './admin/permissions';

type Member = Schemas['Member'];

const memberPath = (email: string) => `/org/v1/members/${encodeURIComponent(email)}`;

/** /org/{id}/members (contract §11): who may do what; a member who may manage members adds, changes and removes them. */
export function Members({ org }: { readonly org: OrgSession }) {
  return (
    <>
      <h1>Members</h1>
      {org.can('member_manage') ? (
        <MemberAdmin org={org} />
      ) : (
        <>
          <p>You may: {org.permissions.map(permissionWords).join('; ')}.</p>
          <p className="note">Only a member who may manage members sees the others and changes who may do what.</p>
        </>
      )}
    </>
  );
}

function MemberAdmin({ org }: { readonly org: OrgSession }) {
  const [load, reload] = useLoad(() => org.api.get<Answer<'get', '/org/v1/members'>>('/org/v1/members').then((l) => l.members));
  return (
    <>
      <AddMember org={org} known={load.kind === 'ready' ? load.value : []} onAdded={reload} />
      <h2>Everyone in the organization</h2>
      <Loaded load={load}>
        {(members) => (
          <ul className="admin-list">
            {members.map((m) => (
              <MemberCard key={m.email} org={org} member={m} onChanged={reload} />
            ))}
          </ul>
        )}
      </Loaded>
    </>
  );
}

type Changed = () => Promise<unknown>;

function AddMember({ org, known, onAdded }: { readonly org: OrgSession; readonly known: readonly Member[]; readonly onAdded: Changed }) {
  const [email, setEmail] = useState('');
  const [permissions, setPermissions] = useState<Permission[]>(['request_read']);
  const action = useAction(onAdded);
  const add = (e: FormEvent) => {
    e.preventDefault();
    const address = email.trim();
    const already = known.some((m) => m.email === address.toLowerCase());
    void action
      .run(async () => {
        await org.api.put(memberPath(address), { permissions });
        return already
          ? `${address} was a member already: their permissions are changed.`
          : `Added ${address}. A mail is on its way to them.`;
      })
      .then((ok) => ok && setEmail(''));
  };
  return (
    <section className="card" aria-labelledby="add-title">
      <h2 id="add-title">Add a member</h2>
      <p className="note">We send the address a mail that names the organization and the page to open. They sign in with that address.</p>
      <form onSubmit={add}>
        <label htmlFor="member-email">Email address of the new member</label>
        <input id="member-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <PermissionBoxes id="new-member" legend="What they may do" value={permissions} onChange={setPermissions} />
        <Outcome action={action} />
        <div className="actions">
          <button type="submit" disabled={action.busy || permissions.length === 0}>
            Add member
          </button>
        </div>
      </form>
    </section>
  );
}

function MemberCard({ org, member, onChanged }: { readonly org: OrgSession; readonly member: Member; readonly onChanged: Changed }) {
  const [permissions, setPermissions] = useState<Permission[]>([...member.permissions]);
  const [confirming, setConfirming] = useState(false);
  const action = useAction(onChanged);
  const unchanged = permissions.length === member.permissions.length && permissions.every((p) => member.permissions.includes(p));
  const save = () =>
    void action.run(async () => {
      await org.api.put(memberPath(member.email), { permissions });
      return 'Saved.';
    });
  const remove = () =>
    void action.run(async () => {
      await org.api.del(memberPath(member.email));
      return 'Removed.';
    });
  return (
    <li className="card">
      <h3>{member.email}</h3>
      <p className="meta">Member since {day(member.addedAt)}</p>
      <PermissionBoxes id={`member-${member.email}`} legend={`What ${member.email} may do`} value={permissions} onChange={setPermissions} />
      <Outcome action={action} />
      {confirming ? (
        <div className="actions">
          <p>Remove {member.email}? They lose access to the organization at once.</p>
          <button type="button" className="danger" disabled={action.busy} onClick={remove}>
            Yes, remove
          </button>
          <button type="button" className="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <div className="actions">
          <button type="button" disabled={action.busy || unchanged || permissions.length === 0} onClick={save}>
            Save permissions
          </button>
          <button type="button" className="secondary" onClick={() => setConfirming(true)}>
            Remove
          </button>
        </div>
      )}
    </li>
  );
}
