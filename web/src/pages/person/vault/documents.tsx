import { useState } from 'react';
import { graphql, messageOf } from '../../../api';
import { Loaded } from '../../../layout';
import { when } from '../../../words';
import { useLoad } from '../../org/admin/load';
import { DataView } from './data-view';
import { NewDocument } from './new-document';
import { PublishVersion } from './publish-version';
import { bySchema, loadDocuments, ownerWords, type Entity, type VaultDocument } from './vault-data';

/** The vault's documents, grouped by schema, each with its versions; a new one, or a new version of one. */
export function Documents() {
  const [load, reload] = useLoad(loadDocuments);
  const [notice, setNotice] = useState<string | null>(null);
  const published = (message: string) => {
    setNotice(message);
    reload();
  };
  return (
    <section aria-labelledby="documents">
      <h2 id="documents">Documents</h2>
      <p role="status" className="ok">
        {notice}
      </p>
      <Loaded load={load}>
        {({ documents, entities }) => (
          <>
            <NewDocument entities={entities} onPublished={published} />
            {documents.length === 0 && <p>No documents yet.</p>}
            {bySchema(documents).map((group) => (
              <section key={group.title} aria-label={group.title}>
                <h3>{group.title}</h3>
                {group.documents.map((d) => (
                  <DocumentCard key={d.id} doc={d} entities={entities} onPublished={published} />
                ))}
              </section>
            ))}
          </>
        )}
      </Loaded>
    </section>
  );
}

type CardProps = { readonly doc: VaultDocument; readonly entities: readonly Entity[]; readonly onPublished: (message: string) => void };

function DocumentCard({ doc, entities, onPublished }: CardProps) {
  const [publishing, setPublishing] = useState(false);
  const owner = ownerWords(doc.owner, entities);
  // A member of a legal entity reads its documents; only its managers publish them.
  const mayPublish = doc.owner === null || entities.some((e) => e.entityId === doc.owner && e.role === 'MANAGER');
  const formId = `publish-${doc.id}`;
  return (
    <article className="card" aria-labelledby={`doc-${doc.id}`}>
      <h4 id={`doc-${doc.id}`}>{doc.name}</h4>
      {owner && <p className="meta">{owner}</p>}
      <details>
        <summary>What it holds</summary>
        <DataView data={doc.data} />
      </details>
      <Versions doc={doc} />
      {mayPublish && (
        <button
          type="button"
          className="secondary"
          aria-expanded={publishing}
          aria-controls={formId}
          onClick={() => setPublishing(!publishing)}
        >
          Publish a new version
        </button>
      )}
      {publishing && (
        <div id={formId}>
          <PublishVersion
            doc={doc}
            onPublished={(version) => {
              setPublishing(false);
              onPublished(`Published version ${version} of ${doc.name}.`);
            }}
          />
        </div>
      )}
    </article>
  );
}

const VERSIONS_DATA = 'query($id: ID!) { user { document(id: $id) { versions { version data } } } }';

/** Every version of a document; an earlier one's data shown on asking, read from the service then. */
function Versions({ doc }: { readonly doc: VaultDocument }) {
  const [shown, setShown] = useState<{ readonly version: number; readonly data: unknown } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const toggle = async (version: number) => {
    setFailure(null);
    if (shown?.version === version) {
      setShown(null);
      return;
    }
    try {
      const read = await graphql<{ user: { document: { versions: { version: number; data: unknown }[] } | null } }>(VERSIONS_DATA, {
        id: doc.id,
      });
      setShown(read.user.document?.versions.find((v) => v.version === version) ?? null);
    } catch (e) {
      setFailure(messageOf(e));
    }
  };
  return (
    <>
      <ol className="person-versions" aria-label={`Versions of ${doc.name}`}>
        {doc.versions.map((v) => (
          <li key={v.version}>
            Version {v.version}, published {when(v.publishedAt)}
            {v.version < doc.version && (
              <>
                {' '}
                <button
                  type="button"
                  className="person-link"
                  aria-expanded={shown?.version === v.version}
                  onClick={() => void toggle(v.version)}
                >
                  {shown?.version === v.version ? 'Hide' : 'Show'} version {v.version}
                </button>
              </>
            )}
          </li>
        ))}
      </ol>
      {failure && (
        <p role="alert" className="error">
          {failure}
        </p>
      )}
      {shown && (
        <div className="person-earlier" aria-label={`Version ${shown.version} of ${doc.name}`} role="group">
          <DataView data={shown.data} />
        </div>
      )}
    </>
  );
}
