import { useState, type FormEvent } from 'react';
import { download, messageOf, Refused, saveBlob, upload } from '../../../api';
import { Loaded } from '../../../layout';
import { toSignIn } from '../../../navigation';
import { sizeWords, when } from '../../../words';
import { useLoad } from '../../org/admin/load';
import { loadFiles, ownerWords, type Entity, type VaultFile } from './vault-data';

/** The vault's files, each with its versions to download; a new file, or a new version of one. */
export function Files() {
  const [load, reload] = useLoad(loadFiles);
  const [notice, setNotice] = useState<string | null>(null);
  const uploaded = (message: string) => {
    setNotice(message);
    reload();
  };
  return (
    <section aria-labelledby="files">
      <h2 id="files">Files</h2>
      <p role="status" className="ok">
        {notice}
      </p>
      <UploadForm title="Upload a file" onUploaded={(_v, name) => uploaded(`Uploaded ${name}.`)} />
      <Loaded load={load}>
        {({ files, entities }) => (
          <>
            {files.length === 0 && <p>No files yet.</p>}
            {files.map((f) => (
              <FileCard key={f.id} file={f} entities={entities} onUploaded={uploaded} />
            ))}
          </>
        )}
      </Loaded>
    </section>
  );
}

const titleOf = (f: VaultFile): string => f.label ?? f.versions.at(-1)?.fileName ?? 'A file';

type CardProps = { readonly file: VaultFile; readonly entities: readonly Entity[]; readonly onUploaded: (message: string) => void };

function FileCard({ file, entities, onUploaded }: CardProps) {
  const [adding, setAdding] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const title = titleOf(file);
  const owner = ownerWords(file.owner, entities);
  // A member of a legal entity reads its files; only its managers add versions.
  const mayChange = file.owner === null || entities.some((e) => e.entityId === file.owner && e.role === 'MANAGER');
  const save = async (version: number) => {
    setFailure(null);
    try {
      saveBlob(await download(`/vault/files/${encodeURIComponent(file.id)}?version=${version}`));
    } catch (e) {
      if (e instanceof Refused && e.status === 401) toSignIn();
      setFailure(messageOf(e));
    }
  };
  const formId = `new-version-${file.id}`;
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
      {failure && (
        <p role="alert" className="error">
          {failure}
        </p>
      )}
      {mayChange && (
        <button type="button" className="secondary" aria-expanded={adding} aria-controls={formId} onClick={() => setAdding(!adding)}>
          Upload a new version
        </button>
      )}
      {adding && (
        <div id={formId}>
          <UploadForm
            title={`New version of ${title}`}
            fileId={file.id}
            onUploaded={(version) => {
              setAdding(false);
              onUploaded(`Uploaded version ${version} of ${title}.`);
            }}
          />
        </div>
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
  const [failure, setFailure] = useState<string | null>(null);
  const id = fileId ? `upload-${fileId}` : 'upload-new';
  const sending = progress !== null && progress < 1;

  const send = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    if (!file) {
      setFailure('Choose a file first.');
      return;
    }
    setFailure(null);
    setProgress(0);
    const query = new URLSearchParams({ fileName: file.name, ...(label.trim() && !fileId ? { label: label.trim() } : {}) });
    const path = fileId ? `/vault/files/${encodeURIComponent(fileId)}/versions?${query}` : `/vault/files?${query}`;
    try {
      const made = await upload<{ version: number }>(path, file, { 'content-type': file.type || 'application/octet-stream' }, setProgress);
      form.reset();
      setFile(null);
      setLabel('');
      onUploaded(made.version, file.name);
    } catch (err) {
      if (err instanceof Refused && err.status === 401) toSignIn();
      setProgress(null);
      setFailure(messageOf(err));
    }
  };

  return (
    <form aria-label={title} onSubmit={(e) => void send(e)}>
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
      {failure && (
        <p role="alert" className="error">
          {failure}
        </p>
      )}
    </form>
  );
}
