import type { Schemas } from '@dss/sdk';
import { Loaded, Outcome, useAction, useLoad } from '../../actions';
import { get, post, type Answer } from '../../api';
import { NameForm } from '../../forms/name-form';
import { Shell } from '../../layout';
import { Link, navigate } from '../../navigation';
import { day } from '../../words';
import { permissionWords } from './admin/permissions';

/** /organizations: the organizations the person is a member of, and founding one (they land in it). */
export function Organizations() {
  const [load] = useLoad(() => get<Answer<'get', '/org/v1/organizations'>>('/org/v1/organizations').then((l) => l.organizations));
  return (
    <Shell>
      <h1>Your organizations</h1>
      <Loaded load={load}>{(organizations) => <MembershipList organizations={organizations} />}</Loaded>
      <CreateOrganization />
    </Shell>
  );
}

function MembershipList({ organizations }: { readonly organizations: readonly Schemas['Membership'][] }) {
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
  const action = useAction();
  const create = async (name: string) => {
    const { organization } = await post<Answer<'post', '/org/v1/organizations'>>('/org/v1/organizations', { name });
    navigate(`/org/${organization.organizationId}/requests`);
  };
  return (
    <section className="card" aria-labelledby="create-title">
      <h2 id="create-title">Create an organization</h2>
      <p className="note">You become its first member, with every permission. People see its name on every request and mail it sends.</p>
      <NameForm id="org-name" label="Name of the organization" submitLabel="Create organization" action={action} onName={create}>
        <Outcome action={action} />
      </NameForm>
    </section>
  );
}
