import { useState, type FormEvent } from 'react';
import { get, post } from '../../api';
import { Loaded, Shell } from '../../layout';
import { Link, navigate } from '../../navigation';
import { day } from '../../words';
import { Outcome, useAction, useLoad } from './admin/load';
import { permissionWords } from './admin/permissions';

type Membership = {
  readonly organizationId: string;
  readonly name: string;
  readonly permissions: readonly string[];
  readonly joinedAt: string;
};

/** /organizations: the organizations the person is a member of, and founding one (they land in it). */
export function Organizations(_props: { readonly requestId?: string }) {
  const [load] = useLoad(() => get<{ organizations: Membership[] }>('/org/v1/organizations').then((l) => l.organizations));
  return (
    <Shell>
      <h1>Your organizations</h1>
      <Loaded load={load}>{(organizations) => <MembershipList organizations={organizations} />}</Loaded>
      <CreateOrganization />
    </Shell>
  );
}

function MembershipList({ organizations }: { readonly organizations: readonly Membership[] }) {
  if (organizations.length === 0) return <p>You are not a member of any organization yet.</p>;
  return (
    <ul className="admin-list">
      {organizations.map((o) => (
        <li key={o.organizationId} className="card">
          <h2>
            <Link to={`/org/${o.organizationId}/requests`}>{o.name}</Link>
          </h2>
          <p className="meta">Member since {day(o.joinedAt)}</p>
          <p>You may: {o.permissions.map(permissionWords).join('; ')}.</p>
        </li>
      ))}
    </ul>
  );
}

function CreateOrganization() {
  const [name, setName] = useState('');
  const action = useAction();
  const create = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const { organization } = await post<{ organization: { organizationId: string } }>('/org/v1/organizations', { name: name.trim() });
      navigate(`/org/${organization.organizationId}/requests`);
      return '';
    });
  };
  return (
    <section className="card" aria-labelledby="create-title">
      <h2 id="create-title">Create an organization</h2>
      <p className="note">You become its first member, with every permission. People see its name on every request and mail it sends.</p>
      <form onSubmit={create}>
        <label htmlFor="org-name">Name of the organization</label>
        <input id="org-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        <Outcome action={action} />
        <div className="actions">
          <button type="submit" disabled={action.busy}>
            Create organization
          </button>
        </div>
      </form>
    </section>
  );
}
