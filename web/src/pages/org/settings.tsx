import type { Schemas } from '@dss/sdk';
import { Loaded, Outcome, useAction, useLoad } from '../../actions';
import type { Answer } from '../../api';
import { NameForm } from '../../forms/name-form';
import { day, when } from '../../words';
import { UnsealButton, type OrgSession } from './org-session';

/** /org/{id}/settings (contract §11): the organization key's warmth and sealing it, and the apps. */
export function Settings({ org }: { readonly org: OrgSession }) {
  return (
    <>
      <h1>Settings</h1>
      <KeySection org={org} />
      <AppsSection org={org} />
    </>
  );
}

function KeySection({ org }: { readonly org: OrgSession }) {
  const [load, reload] = useLoad(() => org.api.get<Schemas['KeyState']>('/org/v1/key'));
  const action = useAction(reload);
  const seal = () =>
    void action.run(async () => {
      await org.api.post('/org/v1/key/seal');
      return 'Sealed: the key is cold.';
    });
  return (
    <section className="card" aria-labelledby="key-title">
      <h2 id="key-title">The organization key</h2>
      <p>
        The key opens the copies you keep of what people share. A member signing in makes it warm for some hours: while it is warm, copies
        can be read and automatic updates are kept as they arrive. While it is cold nothing can be opened, and updates wait as pending until
        a member signs in again.
      </p>
      <Loaded load={load}>
        {(key) => (
          <>
            <p>
              <strong>{key.state === 'warm' ? 'Warm' : 'Cold'}</strong>
              {key.state === 'warm' ? ` until ${when(key.warmUntil)}.` : '.'}
            </p>
            {key.state === 'cold' && <UnsealButton org={org} after={reload} />}
          </>
        )}
      </Loaded>
      {org.can('member_manage') && (
        <>
          <p className="note">
            Sealing makes it cold at once, for instance when a device may be lost. It stays cold until a member signs in to the organization
            again: Unseal by signing in again does that, here or on a request’s page, and so does loading one of these pages afresh.
          </p>
          <Outcome action={action} />
          <div className="actions">
            <button type="button" className="danger" disabled={action.busy} onClick={seal}>
              Seal the key
            </button>
          </div>
        </>
      )}
    </section>
  );
}

function AppsSection({ org }: { readonly org: OrgSession }) {
  return (
    <section className="card" aria-labelledby="apps-title">
      <h2 id="apps-title">Apps</h2>
      <p>
        An app lets a person start sharing with you from your own website or app: it opens a request from one of your manifests in the
        person’s name, and names itself by its client ID.
      </p>
      {org.can('member_manage') ? (
        <AppAdmin org={org} />
      ) : (
        <p className="note">Only a member who may manage members sees and registers apps.</p>
      )}
    </section>
  );
}

function AppAdmin({ org }: { readonly org: OrgSession }) {
  const [load, reload] = useLoad(() => org.api.get<Answer<'get', '/org/v1/apps'>>('/org/v1/apps').then((l) => l.apps));
  const action = useAction(reload);
  const register = async (name: string) => {
    const app = await org.api.post<Answer<'post', '/org/v1/apps'>>('/org/v1/apps', { name });
    return `Registered ${app.name}. Its client ID is ${app.clientId}.`;
  };
  return (
    <>
      <Loaded load={load}>
        {(apps) =>
          apps.length === 0 ? (
            <p>No app is registered yet.</p>
          ) : (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">App</th>
                    <th scope="col">Client ID</th>
                    <th scope="col">Registered</th>
                  </tr>
                </thead>
                <tbody>
                  {apps.map((a) => (
                    <tr key={a.clientId}>
                      <td>{a.name}</td>
                      <td>
                        <code>{a.clientId}</code>
                      </td>
                      <td>{day(a.registeredAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
      <h3>Register an app</h3>
      <NameForm id="app-name" label="Name of the app" submitLabel="Register app" action={action} onName={register}>
        <Outcome action={action} />
      </NameForm>
    </>
  );
}
