import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Failure, useAction } from '../../../actions';
import { Refused } from '../../../api';
import { sendFile, type FileTarget, type SentFile } from './vault-data';

type Props = {
  /** Prefix of the ids: `{id}-file`, `{id}-progress`. */
  readonly id: string;
  /** What the form is: its name, and its progress bar's. */
  readonly title: string;
  /** The file field's label. */
  readonly fileLabel: string;
  /** Where the chosen file goes, read as it is sent: the fields beside it may choose a label or an owner. */
  readonly target: () => FileTarget;
  /** The button that sends it; without one the file goes as soon as it is chosen. */
  readonly submitLabel?: string;
  /** Once the vault holds it; the form is empty again by then. */
  readonly onSent: (made: SentFile, file: File) => Promise<unknown> | void;
  /** Fields between the file and the button. */
  readonly children?: ReactNode;
};

/** Sends a file's bytes to the vault (POST /vault/files, or a file's versions), showing how much has gone. */
export function FileUpload({ id, title, fileLabel, target, submitLabel, onSent, children }: Props) {
  const form = useRef<HTMLFormElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const { busy, error, run } = useAction();

  const send = (chosen: File | null) =>
    run(async () => {
      if (!chosen) throw new Refused(400, 'invalid_request', 'Choose a file first.');
      setProgress(0);
      try {
        const made = await sendFile(chosen, target(), setProgress);
        form.current?.reset();
        setFile(null);
        await onSent(made, chosen);
      } finally {
        setProgress(null);
      }
    });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void send(file);
  };

  return (
    <form ref={form} aria-label={title} onSubmit={submit}>
      <label htmlFor={`${id}-file`}>{fileLabel}</label>
      <input
        id={`${id}-file`}
        type="file"
        onChange={(e) => {
          const chosen = e.target.files?.[0] ?? null;
          setFile(chosen);
          if (!submitLabel && chosen) void send(chosen);
        }}
      />
      {children}
      {submitLabel && (
        <div className="actions">
          <button type="submit" disabled={busy}>
            {submitLabel}
          </button>
        </div>
      )}
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
