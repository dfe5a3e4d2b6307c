import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { messageOf, Refused } from './api';
import { toSignIn } from './navigation';

/**
 * A refusal in the reader's words: the service's own by default; an organization's pages say a 403
 * in the member's words (OrgPage provides them), since there it means their permissions, not a fault.
 */
export const RefusalWords = createContext<(e: unknown) => string>(messageOf);

/** A load's three states, shown the same on every page. */
export type Load<T> =
  { readonly kind: 'loading' } | { readonly kind: 'ready'; readonly value: T } | { readonly kind: 'failed'; readonly message: string };

export function Loaded<T>({
  load,
  loading = 'Loading…',
  children,
}: {
  readonly load: Load<T>;
  /** What shows while it loads. */
  readonly loading?: string;
  readonly children: (value: T) => ReactNode;
}) {
  if (load.kind === 'loading') return <p aria-live="polite">{loading}</p>;
  if (load.kind === 'failed') return <Failure error={load.message} />;
  return <>{children(load.value)}</>;
}

/**
 * What `fetch` answers, loaded on first render and again on reload(); a reload keeps the shown value
 * until the new one arrives, so the page does not flash, and resolves to it (undefined when it failed:
 * the failure shows in its place). A 401 sends the person to sign in.
 */
export function useLoad<T>(fetch: () => Promise<T>): readonly [Load<T>, () => Promise<T | undefined>] {
  const words = useContext(RefusalWords);
  const [load, setLoad] = useState<Load<T>>({ kind: 'loading' });
  const latest = useRef(fetch);
  latest.current = fetch;
  // Only the newest call shows: an answer that arrives after a newer call (or the page's end) is dropped.
  const calls = useRef(0);
  const reload = useCallback(async () => {
    const call = ++calls.current;
    try {
      const value = await latest.current();
      if (call === calls.current) setLoad({ kind: 'ready', value });
      return value;
    } catch (e) {
      if (call !== calls.current) return undefined;
      if (e instanceof Refused && e.status === 401) toSignIn();
      else setLoad({ kind: 'failed', message: words(e) });
      return undefined;
    }
  }, [words]);
  useEffect(() => {
    void reload();
    return () => {
      calls.current++;
    };
  }, [reload]);
  return [load, reload];
}

/** A form's or a button's call in flight, and how the last one ended, in words. */
export type Action = {
  readonly busy: boolean;
  readonly error: string | null;
  readonly done: string | null;
  /** Runs `act`; an answer that is a sentence is shown as done. False when it was refused. */
  readonly run: (act: () => Promise<unknown>) => Promise<boolean>;
};

/** `after` runs once an act succeeded, inside it: mostly reading the page again to show what changed. */
export function useAction(after?: () => Promise<unknown>): Action {
  const words = useContext(RefusalWords);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const then = useRef(after);
  then.current = after;
  const run = useCallback(
    async (act: () => Promise<unknown>) => {
      setBusy(true);
      setError(null);
      setDone(null);
      try {
        const answer = await act();
        await then.current?.();
        setDone(typeof answer === 'string' ? answer : null);
        return true;
      } catch (e) {
        // A wrong code (invalid_code) is the form's to say, not a signed-out session.
        if (e instanceof Refused && e.status === 401 && e.code !== 'invalid_code') toSignIn();
        setError(words(e));
        return false;
      } finally {
        setBusy(false);
      }
    },
    [words],
  );
  return { busy, error, done, run };
}

/** A refusal, announced at once; nothing when there is none. */
export function Failure({ error }: { readonly error: string | null }) {
  return error === null ? null : (
    <p role="alert" className="error">
      {error}
    </p>
  );
}

/** How the last action ended, announced to screen readers. */
export function Outcome({ action }: { readonly action: Action }) {
  return (
    <>
      <Failure error={action.error} />
      <p role="status" className="ok admin-status">
        {action.done}
      </p>
    </>
  );
}
