import { useEffect } from 'react';
import { navigate, usePath } from './navigation';
import { Requests } from './pages/requests';
import { SignIn } from './pages/sign-in';

/** The pages of contract §11; those not built yet say so. */
export function App() {
  const path = usePath();
  useEffect(() => {
    if (path === '/') navigate('/requests', true);
  }, [path]);
  useEffect(() => {
    document.title = `${titleOf(path)} · Data sharing`;
  }, [path]);
  if (path === '/sign-in') return <SignIn />;
  if (path === '/requests' || path === '/') return <Requests />;
  return <NotYet path={path} />;
}

function titleOf(path: string): string {
  if (path === '/sign-in') return 'Sign in';
  if (path === '/requests' || path === '/') return 'Your requests';
  return 'Coming soon';
}

function NotYet({ path }: { path: string }) {
  return (
    <main className="page">
      <h1>This page is not here yet</h1>
      <p>
        The page <code>{path}</code> comes in a later version.
      </p>
      <p>
        <a href="/requests">Go to your requests</a>
      </p>
    </main>
  );
}
