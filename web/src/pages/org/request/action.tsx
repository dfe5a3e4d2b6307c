import { useState } from 'react';
import { messageOf } from '../../../api';

/** A button's call in flight: busy while it runs, and the service's words when it fails. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (call: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await call();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

export function Failure({ error }: { readonly error: string | null }) {
  return error === null ? null : (
    <p role="alert" className="error">
      {error}
    </p>
  );
}
