import { useState } from 'react';
import { Failure, useAction } from '../../../actions';
import { Disclosure } from '../../../disclosure';
import { SchemaData } from '../../../forms/schema-data';
import { when } from '../../../words';
import { NewDocument } from './new-document';
import { PublishVersion } from './publish-version';
import {
  bySchema,
  loadDocuments,
  loadVersion,
  mayChange,
  ownerWords,
  type Entity,
  type ShownVersion,
  type VaultDocument,
} from './vault-data';
import { VaultSection } from './vault-section';

/** The vault's documents, grouped by schema, each with its versions; a new one, or a new version of one. */
export function Documents() {
  return (
    <VaultSection id="documents" title="Documents" fetch={loadDocuments}>
      {({ documents, entities }, published) => (
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
    </VaultSection>
  );
}

type CardProps = { readonly doc: VaultDocument; readonly entities: readonly Entity[]; readonly onPublished: (message: string) => void };

function DocumentCard({ doc, entities, onPublished }: CardProps) {
  const owner = ownerWords(doc.owner, entities);
  return (
    <article className="card" aria-labelledby={`doc-${doc.id}`}>
      <h4 id={`doc-${doc.id}`}>{doc.name}</h4>
      {owner && <p className="meta">{owner}</p>}
      <details>
        <summary>What it holds</summary>
        <SchemaData data={doc.data} />
      </details>
      <Versions doc={doc} />
      {mayChange(doc.owner, entities) && (
        <Disclosure id={`publish-${doc.id}`} label="Publish a new version">
          {(close) => (
            <PublishVersion
              doc={doc}
              onPublished={(version) => {
                close();
                onPublished(`Published version ${version} of ${doc.name}.`);
              }}
            />
          )}
        </Disclosure>
      )}
    </article>
  );
}

/** Every version of a document; an earlier one's data shown on asking, only that version read from the service then. */
function Versions({ doc }: { readonly doc: VaultDocument }) {
  const [shown, setShown] = useState<ShownVersion | null>(null);
  const { error, run } = useAction();
  const toggle = (version: number) => run(async () => setShown(shown?.version === version ? null : await loadVersion(doc.id, version)));
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
      <Failure error={error} />
      {shown && (
        <div className="person-earlier" aria-label={`Version ${shown.version} of ${doc.name}`} role="group">
          <SchemaData data={shown.data} />
        </div>
      )}
    </>
  );
}
