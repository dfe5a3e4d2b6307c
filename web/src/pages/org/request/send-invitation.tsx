import type { Request, Schemas } from '@dss/sdk';
import { useState, type FormEvent } from 'react';
import { Failure, Loaded, useAction, useLoad } from '../../../actions';
import { Link } from '../../../navigation';
import type { Answer } from '../../../api';
import type { OrgSession } from '../org-session';

/** Send invitation: a manifest of the organization's (its newest version) to a person's address (POST /org/v1/requests). */
export function SendInvitation({ org, onSent }: { readonly org: OrgSession; readonly onSent: (request: Request) => void }) {
  const [load] = useLoad(() => org.api.get<Answer<'get', '/org/v1/manifests'>>('/org/v1/manifests').then((m) => m.manifests));
  return (
    <section className="card" aria-labelledby="send-heading">
      <h2 id="send-heading">Send an invitation</h2>
      <Loaded load={load} loading="Loading the manifests…">
        {(manifests) =>
          manifests.length === 0 ? (
            <p>
              There is no manifest to send yet. <Link to={`/org/${org.organizationId}/manifests`}>Publish one first</Link>.
            </p>
          ) : (
            <SendForm org={org} manifests={manifests} onSent={onSent} />
          )
        }
      </Loaded>
    </section>
  );
}

function SendForm({
  org,
  manifests,
  onSent,
}: {
  readonly org: OrgSession;
  readonly manifests: readonly Schemas['Manifest'][];
  readonly onSent: (request: Request) => void;
}) {
  const [manifestId, setManifestId] = useState(manifests[0]?.manifestId ?? '');
  const [email, setEmail] = useState('');
  const { busy, error, done, run } = useAction();

  const send = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const { request } = await org.api.post<Answer<'post', '/org/v1/requests'>>('/org/v1/requests', { manifestId, recipientEmail: email });
      setEmail('');
      onSent(request);
      return `Invitation sent to ${request.recipientEmail}.`;
    });
  };

  return (
    <form onSubmit={send}>
      <label htmlFor="send-manifest">Manifest</label>
      <select id="send-manifest" value={manifestId} onChange={(e) => setManifestId(e.target.value)}>
        {manifests.map((m) => (
          <option key={m.manifestId} value={m.manifestId}>
            {m.name} (version {m.version})
          </option>
        ))}
      </select>
      <label htmlFor="send-email">Recipient’s email</label>
      <input id="send-email" type="email" required autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
      <div className="actions">
        <button type="submit" disabled={busy}>
          Send invitation
        </button>
      </div>
      <p aria-live="polite" className="ok">
        {done}
      </p>
      <Failure error={error} />
    </form>
  );
}
