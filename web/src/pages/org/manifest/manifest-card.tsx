import { useState } from 'react';
import { Loaded, useLoad } from '../../../actions';
import type { Answer } from '../../../api';
import { ConsentSummary } from '../../../consent/consent-summary';
import { retentionWords, when } from '../../../words';
import type { OrgSession } from '../org-session';
import type { Manifest } from './drafts';

type Props = {
  readonly org: OrgSession;
  readonly organizationName: string;
  readonly manifest: Manifest;
  /** Opens the editor on the next version; absent when the member may not manage manifests. */
  readonly onNewVersion?: () => void;
};

/** One manifest at its newest version, its earlier versions on request. */
export function ManifestCard({ org, organizationName, manifest: m, onNewVersion }: Props) {
  const [showVersions, setShowVersions] = useState(false);
  const versionsId = `versions-${m.manifestId}`;
  return (
    <li className="card">
      <h2>{m.name}</h2>
      <p className="meta">
        Version {m.version}, published {when(m.publishedAt)}
      </p>
      <p>{m.purpose}</p>
      <p>Kept for {retentionWords(m.retention)}.</p>
      <p>Asks for: {m.slots.map((s) => (s.required ? `${s.label} (required)` : s.label)).join(', ')}.</p>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          aria-expanded={showVersions}
          aria-controls={versionsId}
          onClick={() => setShowVersions(!showVersions)}
        >
          {showVersions ? 'Hide versions' : 'Show versions'}
        </button>
        {onNewVersion && (
          <button type="button" onClick={onNewVersion}>
            Prepare version {m.version + 1}
          </button>
        )}
      </div>
      <div id={versionsId}>{showVersions && <Versions org={org} organizationName={organizationName} manifest={m} />}</div>
    </li>
  );
}

/** Any version as the person read it when it was sent (GET /org/v1/manifests/{id}?version=N). */
function Versions({ org, organizationName, manifest }: Omit<Props, 'onNewVersion'>) {
  const [version, setVersion] = useState(manifest.version);
  const selectId = `version-of-${manifest.manifestId}`;
  return (
    <>
      <div className="admin-inline">
        <label htmlFor={selectId}>Version</label>
        <select id={selectId} value={version} onChange={(e) => setVersion(Number(e.target.value))}>
          {Array.from({ length: manifest.version }, (_, i) => manifest.version - i).map((v) => (
            <option key={v} value={v}>
              Version {v}
            </option>
          ))}
        </select>
      </div>
      <Version key={version} org={org} organizationName={organizationName} manifestId={manifest.manifestId} version={version} />
    </>
  );
}

function Version(props: {
  readonly org: OrgSession;
  readonly organizationName: string;
  readonly manifestId: string;
  readonly version: number;
}) {
  const [load] = useLoad(() =>
    props.org.api
      .get<Answer<'get', '/org/v1/manifests/{manifestId}'>>(`/org/v1/manifests/${props.manifestId}?version=${props.version}`)
      .then((a) => a.manifest),
  );
  return (
    <Loaded load={load}>
      {(m) => (
        <>
          <p className="meta">Published {when(m.publishedAt)}. The person read it like this:</p>
          <ConsentSummary organizationName={props.organizationName} purpose={m.purpose} retention={m.retention} slots={m.slots} />
        </>
      )}
    </Loaded>
  );
}
