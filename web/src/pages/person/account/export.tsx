import { useState } from 'react';
import { download, graphql, messageOf, Refused, saveBlob } from '../../../api';
import { toSignIn } from '../../../navigation';
import { sizeWords } from '../../../words';

type State =
  | { readonly kind: 'idle' }
  | { readonly kind: 'running'; readonly received: number }
  | { readonly kind: 'done'; readonly received: number; readonly name: string }
  | { readonly kind: 'failed'; readonly message: string };

/**
 * Everything held about the person (R-EXP-01): user.export gives a one-time link of GET /vault/export,
 * whose archive is streamed without a length, so the page counts the bytes as they come.
 */
export function Export() {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const run = async () => {
    setState({ kind: 'running', received: 0 });
    try {
      const link = new URL((await graphql<{ user: { export: string } }>('{ user { export } }')).user.export, window.location.href);
      // The link names the service by its BASE_URL; the pages call their own origin.
      const file = await download(`${link.pathname}${link.search}`, undefined, (received) => setState({ kind: 'running', received }));
      saveBlob(file);
      setState({ kind: 'done', received: file.blob.size, name: file.name });
    } catch (e) {
      if (e instanceof Refused && e.status === 401) toSignIn();
      setState({ kind: 'failed', message: messageOf(e) });
    }
  };
  return (
    <section aria-labelledby="export">
      <h2 id="export">Export</h2>
      <p>
        One file with everything held about you: your documents and files with every version, your requests with what you shared, and what
        organizations did with your records.
      </p>
      <div className="actions">
        <button type="button" disabled={state.kind === 'running'} onClick={() => void run()}>
          Export
        </button>
      </div>
      {state.kind === 'running' && (
        <p className="person-progress">
          <progress aria-label="Export received so far" />
          <span aria-live="polite">{sizeWords(state.received)} received</span>
        </p>
      )}
      <p role="status" className="ok">
        {state.kind === 'done' && `Saved ${state.name} (${sizeWords(state.received)}).`}
      </p>
      {state.kind === 'failed' && (
        <p role="alert" className="error">
          {state.message}
        </p>
      )}
    </section>
  );
}
