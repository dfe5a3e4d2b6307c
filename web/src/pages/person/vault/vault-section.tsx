import { useState, type ReactNode } from 'react';
import { Loaded, useLoad } from '../../../actions';

type Props<T> = {
  readonly id: string;
  readonly title: string;
  readonly fetch: () => Promise<T>;
  /** The part's content; `changed` says what a change did and reads the part again. */
  readonly children: (value: T, changed: (message: string) => void) => ReactNode;
};

/** A part of the vault (documents, files): its heading, what the last change did, and what `fetch` reads. */
export function VaultSection<T>({ id, title, fetch, children }: Props<T>) {
  const [load, reload] = useLoad(fetch);
  const [notice, setNotice] = useState<string | null>(null);
  const changed = (message: string) => {
    setNotice(message);
    void reload();
  };
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <p role="status" className="ok">
        {notice}
      </p>
      <Loaded load={load}>{(value) => children(value, changed)}</Loaded>
    </section>
  );
}
