import { useState } from 'react';
import { Outcome, useAction } from '../../../actions';
import { download, graphql, saveBlob } from '../../../api';
import { sizeWords } from '../../../words';

/**
 * Everything held about the person (R-EXP-01): user.export gives a one-time link of GET /vault/export,
 * whose archive is streamed without a length, so the page counts the bytes as they come.
 */
export function Export() {
  /** Bytes received while the archive comes; null before and after. */
  const [received, setReceived] = useState<number | null>(null);
  const action = useAction();
  const run = () =>
    action.run(async () => {
      setReceived(0);
      try {
        const link = new URL((await graphql<{ user: { export: string } }>('{ user { export } }')).user.export, window.location.href);
        // The link names the service by its BASE_URL; the pages call their own origin.
        const file = await download(`${link.pathname}${link.search}`, undefined, setReceived);
        saveBlob(file);
        return `Saved ${file.name} (${sizeWords(file.blob.size)}).`;
      } finally {
        setReceived(null);
      }
    });
  return (
    <section aria-labelledby="export">
      <h2 id="export">Export</h2>
      <p>
        One file with everything held about you: your documents and files with every version, your requests with what you shared, and what
        organizations did with your records.
      </p>
      <div className="actions">
        <button type="button" disabled={action.busy} onClick={() => void run()}>
          Export
        </button>
      </div>
      {received !== null && (
        <p className="person-progress">
          <progress aria-label="Export received so far" />
          <span aria-live="polite">{sizeWords(received)} received</span>
        </p>
      )}
      <Outcome action={action} />
    </section>
  );
}
