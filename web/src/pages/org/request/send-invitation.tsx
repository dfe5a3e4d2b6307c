import { useEffect, useState, type FormEvent } from 'react';
import { messageOf } from '../../../api';
import { Link } from '../../../navigation';
import type { OrgSession } from '../org-session';
import { Failure, useAction } from './action';
import type { RequestSummary } from './model';

type Manifest = { readonly manifestId: string; readonly name: string; readonly version: number };

/** Send invitation: a manifest of the organization's (its newest version) to a person's address (POST /org/v1/requests). */
export function SendInvitation({ org, onSent }: { readonly org: OrgSession; readonly onSent: (request: RequestSummary) => void }) {
  const [manifests, setManifests] = useState<readonly Manifest[] | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [manifestId, setManifestId] = useState('');
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const { busy, error, run } = useAction();

  useEffect(() => {
    org.api.get<{ manifests: Manifest[] }>('/org/v1/manifests').then(
      (m) => {
        setManifests(m.manifests);
        setManifestId(m.manifests[0]?.manifestId ?? '');
      },
      (e: unknown) => setFailed(messageOf(e)),
    );
  }, [org.api]);

  const send = (e: FormEvent) => {
    e.preventDefault();
    setSent(null);
    void run(async () => {
      const { request } = await org.api.post<{ request: RequestSummary }>('/org/v1/requests', { manifestId, recipientEmail: email });
      setSent(`Invitation sent to ${request.recipientEmail}.`);
      setEmail('');
      onSent(request);
    });
  };

  return (
    <section className="card" aria-labelledby="send-heading">
      <h2 id="send-heading">Send an invitation</h2>
      <Failure error={failed} />
      {manifests === null && failed === null && <p>Loading the manifests…</p>}
      {manifests?.length === 0 && (
        <p>
          There is no manifest to send yet. <Link to={`/org/${org.organizationId}/manifests`}>Publish one first</Link>.
        </p>
      )}
      {manifests && manifests.length > 0 && (
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
            {sent}
          </p>
          <Failure error={error} />
        </form>
      )}
    </section>
  );
}
