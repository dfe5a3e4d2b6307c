import { useState } from 'react';
import { Failure, useAction } from '../../../actions';
import { download, saveBlob } from '../../../api';
import { Disclosure } from '../../../disclosure';
import { sizeWords, when } from '../../../words';
import { FileUpload } from './file-upload';
import { managedOf, OwnerSelect } from './owner-select';
import { fileTitle, loadFiles, mayChange, ownerWords, type Entity, type VaultFile } from './vault-data';
import { VaultSection } from './vault-section';

/** The vault's files, each with its versions to download; a new file, or a new version of one. */
export function Files() {
  return (
    <VaultSection id="files" title="Files" fetch={loadFiles}>
      {({ files, entities }, uploaded) => (
        <>
          <UploadForm title="Upload a file" entities={entities} onUploaded={(_v, name) => uploaded(`Uploaded ${name}.`)} />
          {files.length === 0 && <p>No files yet.</p>}
          {files.map((f) => (
            <FileCard key={f.id} file={f} entities={entities} onUploaded={uploaded} />
          ))}
        </>
      )}
    </VaultSection>
  );
}

type CardProps = { readonly file: VaultFile; readonly entities: readonly Entity[]; readonly onUploaded: (message: string) => void };

function FileCard({ file, entities, onUploaded }: CardProps) {
  const { error, run } = useAction();
  const title = fileTitle(file);
  const owner = ownerWords(file.owner, entities);
  const save = (version: number) =>
    run(async () => saveBlob(await download(`/vault/files/${encodeURIComponent(file.id)}?version=${version}`)));
  return (
    <article className="card" aria-labelledby={`file-${file.id}`}>
      <h3 id={`file-${file.id}`}>{title}</h3>
      {owner && <p className="meta">{owner}</p>}
      <ol className="person-versions" aria-label={`Versions of ${title}`}>
        {file.versions.map((v) => (
          <li key={v.version}>
            Version {v.version}: {v.fileName}, {sizeWords(v.fileSize)}, uploaded {when(v.uploadedAt)}{' '}
            <button type="button" className="person-link" onClick={() => void save(v.version)}>
              Download version {v.version}
            </button>
          </li>
        ))}
      </ol>
      <Failure error={error} />
      {mayChange(file.owner, entities) && (
        <Disclosure id={`new-version-${file.id}`} label="Upload a new version">
          {(close) => (
            <UploadForm
              title={`New version of ${title}`}
              fileId={file.id}
              onUploaded={(version) => {
                close();
                onUploaded(`Uploaded version ${version} of ${title}.`);
              }}
            />
          )}
        </Disclosure>
      )}
    </article>
  );
}

type UploadProps = {
  readonly title: string;
  /** The file a new version is for; none for a new file. */
  readonly fileId?: string;
  /** The legal entities the person belongs to: a new file goes in the vault of one they manage, or in their own. */
  readonly entities?: readonly Entity[];
  readonly onUploaded: (version: number, fileName: string) => void;
};

/** A new file (what it is, whose it is), or a new version of one. */
function UploadForm({ title, fileId, entities = [], onUploaded }: UploadProps) {
  const [label, setLabel] = useState('');
  const [owner, setOwner] = useState('');
  const id = fileId ? `upload-${fileId}` : 'upload-new';
  return (
    <>
      {!fileId && <h3>{title}</h3>}
      <FileUpload
        id={id}
        title={title}
        fileLabel={fileId ? 'The new version' : 'File'}
        submitLabel={fileId ? 'Upload version' : 'Upload'}
        target={() => (fileId ? { fileId } : { label: label.trim(), owner })}
        onSent={(made, file) => {
          setLabel('');
          onUploaded(made.version, file.name);
        }}
      >
        {!fileId && (
          <>
            <label htmlFor={`${id}-label`}>What it is (optional)</label>
            <input id={`${id}-label`} value={label} maxLength={200} onChange={(e) => setLabel(e.target.value)} />
            {managedOf(entities).length > 0 && (
              <OwnerSelect id={`${id}-owner`} label="Whose it is" entities={entities} value={owner} onChange={setOwner} yours />
            )}
          </>
        )}
      </FileUpload>
    </>
  );
}
