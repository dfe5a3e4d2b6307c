import { useState } from 'react';
import { Loaded, useLoad } from '../../actions';
import type { Answer } from '../../api';
import { useMemberships } from '../../layout';
import type { OrgSession } from './org-session';
import type { Manifest } from './manifest/drafts';
import { ManifestCard } from './manifest/manifest-card';
import { ManifestEditor } from './manifest/manifest-editor';

/** Which manifest the editor drafts: a new one, or the next version of one. */
type Editing = { readonly base?: Manifest } | null;

/**
 * /org/{id}/manifests (contract §11): the manifests at their newest versions, their earlier ones, and
 * for a member who may manage manifests, the editor that publishes a new one or a new version.
 */
export function Manifests({ org }: { readonly org: OrgSession }) {
  const [load, reload] = useLoad(() => org.api.get<Answer<'get', '/org/v1/manifests'>>('/org/v1/manifests').then((l) => l.manifests));
  const [editing, setEditing] = useState<Editing>(null);
  const [published, setPublished] = useState<string | null>(null);
  const organizationName = useMemberships().find((m) => m.organizationId === org.organizationId)?.name ?? 'Your organization';
  const manage = org.can('manifest_manage');

  const open = (base?: Manifest) => {
    setPublished(null);
    setEditing(base ? { base } : {});
  };
  const done = (m: Manifest) => {
    setEditing(null);
    setPublished(`Published version ${m.version} of ${m.name}.`);
    void reload();
  };

  return (
    <>
      <h1>Manifests</h1>
      <p className="note">
        A manifest says what you ask people for, why, and for how long you keep it. Every request is sent from one version.
      </p>
      {!manage && <p className="note">Your permissions let you read the manifests, not write them.</p>}
      <p role="status" className="ok admin-status">
        {published}
      </p>
      {manage &&
        (editing ? (
          <ManifestEditor
            key={editing.base?.manifestId ?? 'new'}
            org={org}
            organizationName={organizationName}
            base={editing.base}
            onPublished={done}
            onCancel={() => setEditing(null)}
          />
        ) : (
          <div className="actions">
            <button type="button" onClick={() => open()}>
              New manifest
            </button>
          </div>
        ))}
      <Loaded load={load}>
        {(manifests) =>
          manifests.length === 0 ? (
            <p>There are no manifests yet.</p>
          ) : (
            <ul className="admin-list">
              {manifests.map((m) => (
                <ManifestCard
                  key={m.manifestId}
                  org={org}
                  organizationName={organizationName}
                  manifest={m}
                  onNewVersion={manage ? () => open(m) : undefined}
                />
              ))}
            </ul>
          )
        }
      </Loaded>
    </>
  );
}
