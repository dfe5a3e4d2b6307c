import { useState, type FormEvent } from 'react';
import { Loaded, Outcome, useAction, useLoad, type Action } from '../../../actions';
import { graphql } from '../../../api';
import { NameForm } from '../../../forms/name-form';
import { loadEntities, roleWords, type Entity, type EntityRole } from './vault-data';

const CREATE = 'mutation($name: String!) { user { entity { create(name: $name) { entityId } } } }';
const SET_MEMBER = `mutation($entityId: ID!, $email: String!, $role: EntityRole!) {
  user { entity { setMember(entityId: $entityId, email: $email, role: $role) { entityId } } } }`;
const REMOVE_MEMBER = `mutation($entityId: ID!, $email: String!) {
  user { entity { removeMember(entityId: $entityId, email: $email) { entityId } } } }`;

/** The legal entities the person acts for, their members and roles; managers add, change and remove members. */
export function Entities() {
  const [load, reload] = useLoad(loadEntities);
  // Each change shows the entities as they now stand.
  const action = useAction(reload);
  return (
    <section aria-labelledby="entities">
      <h2 id="entities">Legal entities</h2>
      <p className="note">
        Companies and other legal entities you act for, each with a vault of its own. Members read its documents and files; managers also
        publish them and choose its members.
      </p>
      <NameForm
        id="entity-name"
        label="Name of a new legal entity"
        submitLabel="Create legal entity"
        action={action}
        onName={async (name) => {
          await graphql(CREATE, { name });
          return `Created ${name}; you manage it.`;
        }}
      />
      <Outcome action={action} />
      <Loaded load={load}>
        {(entities) => (
          <>
            {entities.length === 0 && <p>You belong to no legal entity yet.</p>}
            {entities.map((e) => (
              <EntityCard key={e.entityId} entity={e} action={action} />
            ))}
          </>
        )}
      </Loaded>
    </section>
  );
}

type CardProps = { readonly entity: Entity; readonly action: Action };

function EntityCard({ entity, action }: CardProps) {
  const manages = entity.role === 'MANAGER';
  return (
    <article className="card" aria-labelledby={`entity-${entity.entityId}`}>
      <h3 id={`entity-${entity.entityId}`}>{entity.name}</h3>
      <p className="meta">Your role: {roleWords(entity.role)}</p>
      <ul className="person-members" aria-label={`Members of ${entity.name}`}>
        {entity.members.map((m) => (
          <li key={m.email}>
            <span className="person-who">{m.email}</span>
            {manages ? <MemberControls entity={entity} member={m} action={action} /> : <span>{roleWords(m.role)}</span>}
          </li>
        ))}
      </ul>
      {manages && <AddMember entity={entity} action={action} />}
    </article>
  );
}

function RoleSelect({ id, label, value, onChange }: { id: string; label: string; value: EntityRole; onChange: (r: EntityRole) => void }) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value as EntityRole)}>
        <option value="MEMBER">{roleWords('MEMBER')}</option>
        <option value="MANAGER">{roleWords('MANAGER')}</option>
      </select>
    </>
  );
}

type MemberProps = CardProps & { readonly member: Entity['members'][number] };

function MemberControls({ entity, member, action }: MemberProps) {
  const [role, setRole] = useState<EntityRole>(member.role);
  const key = `${entity.entityId}-${member.email}`;
  const setMember = () =>
    action.run(async () => {
      await graphql(SET_MEMBER, { entityId: entity.entityId, email: member.email, role });
      return `${member.email} is now ${roleWords(role).toLowerCase()} of ${entity.name}.`;
    });
  const remove = () =>
    action.run(async () => {
      await graphql(REMOVE_MEMBER, { entityId: entity.entityId, email: member.email });
      return `Removed ${member.email} from ${entity.name}.`;
    });
  return (
    <span className="person-controls">
      <RoleSelect id={`role-${key}`} label={`Role of ${member.email}`} value={role} onChange={setRole} />
      <button type="button" className="secondary" disabled={action.busy || role === member.role} onClick={() => void setMember()}>
        Change role<span className="person-hidden"> of {member.email}</span>
      </button>
      <button type="button" className="danger" disabled={action.busy} onClick={() => void remove()}>
        Remove<span className="person-hidden"> {member.email}</span>
      </button>
    </span>
  );
}

function AddMember({ entity, action }: CardProps) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<EntityRole>('MEMBER');
  const add = async (e: FormEvent) => {
    e.preventDefault();
    const added = await action.run(async () => {
      await graphql(SET_MEMBER, { entityId: entity.entityId, email: email.trim(), role });
      return `Added ${email.trim()} to ${entity.name} as ${roleWords(role).toLowerCase()}.`;
    });
    if (added) setEmail('');
  };
  const id = `add-${entity.entityId}`;
  return (
    <form aria-label={`Add a member to ${entity.name}`} onSubmit={(e) => void add(e)}>
      <label htmlFor={`${id}-email`}>Email address of the new member</label>
      <input id={`${id}-email`} type="email" value={email} required onChange={(e) => setEmail(e.target.value)} />
      <RoleSelect id={`${id}-role`} label="Their role" value={role} onChange={setRole} />
      <div className="actions">
        <button type="submit" disabled={action.busy}>
          Add member
        </button>
      </div>
    </form>
  );
}
