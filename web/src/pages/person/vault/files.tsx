import { useState, type FormEvent } from 'react';
import { Failure, useAction } from '../../../actions';
import { download, Refused, saveBlob } from '../../../api';
import { Disclosure } from '../../../disclosure';
import { sizeWords, when } from '../../../words';
import { fileTitle, loadFiles, mayChange, ownerWords, sendFile, type Entity, type VaultFile } from './vault-data';
import { VaultSection } from './vault-section';

/** The vault's files, each with its versions to download; a new file, or a new version of one. */
export function Files() {
  return (
    <VaultSection id="files" title="Files" fetch={loadFiles}>
      {({ files, entities }, uploaded) => (
        <>
          <UploadForm title="Upload a file" onUploaded={(_v, name) => uploaded(`Uploaded ${name}.`)} />
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
  readonly onUploaded: (version: number, fileName: string) => void;
};

/** Sends the chosen file's bytes (POST /vault/files, or its versions), showing how much has gone. */
function UploadForm({ title, fileId, onUploaded }: UploadProps) {
  const [file, setFile] = useState<File | null>(null);
  const [label, setLabel] = useState('');
  const [progress, setProgress] = useState<number | null>(null);
  const { error, run } = useAction();
  const id = fileId ? `upload-${fileId}` : 'upload-new';
  const sending = progress !== null && progress < 1;

  const send = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    void run(async () => {
      if (!file) throw new Refused(400, 'invalid_request', 'Choose a file first.');
      setProgress(0);
      const made = await sendFile(file, fileId ? { fileId } : { label: label.trim() }, setProgress).catch((err: unknown) => {
        setProgress(null);
        throw err;
      });
      form.reset();
      setFile(null);
      setLabel('');
      onUploaded(made.version, file.name);
    });
  };

  return (
    <form aria-label={title} onSubmit={send}>
      {!fileId && <h3>{title}</h3>}
      <label htmlFor={`${id}-file`}>{fileId ? 'The new version' : 'File'}</label>
      <input
        id={`${id}-file`}
        type="file"
        onChange={(e) => {
          setFile(e.target.files?.[0] ?? null);
          setProgress(null);
        }}
      />
      {!fileId && (
        <>
          <label htmlFor={`${id}-label`}>What it is (optional)</label>
          <input id={`${id}-label`} value={label} maxLength={200} onChange={(e) => setLabel(e.target.value)} />
        </>
      )}
      <div className="actions">
        <button type="submit" disabled={sending}>
          {fileId ? 'Upload version' : 'Upload'}
        </button>
      </div>
      {progress !== null && (
        <p className="person-progress">
          <progress id={`${id}-progress`} value={progress} max={1} aria-label={`${title}: sent`} />
          <span aria-live="polite">{progress < 1 ? `${Math.round(progress * 100)}% sent` : 'Sent'}</span>
        </p>
      )}
      <Failure error={error} />
    </form>
  );
}
