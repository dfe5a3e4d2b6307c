import { useCallback, useEffect, useRef, useState } from 'react';
import { messageOf, Refused } from '../../../api';
import type { Load } from '../../../layout';
import { toSignIn } from '../../../navigation';

/** A refusal in the member's words: a 403 means their permissions leave this out, not that something broke. */
export function refusalWords(e: unknown): string {
  if (e instanceof Refused && e.status === 403) return 'Your permissions in this organization do not include this.';
  return messageOf(e);
}

/**
 * What `fetch` answers, loaded on first render and again on reload(); a reload keeps the shown value
 * until the new one arrives, so the page does not flash. A 401 sends the member to sign in.
 */
export function useLoad<T>(fetch: () => Promise<T>): readonly [Load<T>, () => void] {
  const [load, setLoad] = useState<Load<T>>({ kind: 'loading' });
  const [round, setRound] = useState(0);
  const latest = useRef(fetch);
  latest.current = fetch;
  useEffect(() => {
    let live = true;
    latest.current().then(
      (value) => {
        if (live) setLoad({ kind: 'ready', value });
      },
      (e: unknown) => {
        if (!live) return;
        if (e instanceof Refused && e.status === 401) toSignIn();
        else setLoad({ kind: 'failed', message: refusalWords(e) });
      },
    );
    return () => {
      live = false;
    };
  }, [round]);
  return [load, useCallback(() => setRound((r) => r + 1), [])];
}

/** A form's call in flight, and how the last one ended, in words. */
export type Action = {
  readonly busy: boolean;
  readonly error: string | null;
  readonly done: string | null;
  /** Runs `act`; its answer (a sentence) is shown as done. False when it was refused. */
  readonly run: (act: () => Promise<string>) => Promise<boolean>;
};

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = useCallback(async (act: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      setDone(await act());
      return true;
    } catch (e) {
      if (e instanceof Refused && e.status === 401) toSignIn();
      setError(refusalWords(e));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, done, run };
}

/** How the last action ended, announced to screen readers. */
export function Outcome({ action }: { readonly action: Action }) {
  return (
    <>
      {action.error && (
        <p role="alert" className="error">
          {action.error}
        </p>
      )}
      <p role="status" className="ok admin-status">
        {action.done}
      </p>
    </>
  );
}
