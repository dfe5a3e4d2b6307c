import { createElement, useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** The page's path, following the history: the service answers every page path with this app. */
export function usePath(): string {
  const [path, setPath] = useState(window.location.pathname);
  useEffect(() => {
    const onPop = () => setPath(window.location.pathname);
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  return path;
}

export function navigate(to: string, replace = false): void {
  if (replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** A link between the pages: a real <a href> (keyboard, new tab), followed in the page without a reload. */
export function Link({ to, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { readonly to: string }) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  const current = window.location.pathname === to ? { 'aria-current': 'page' as const } : {};
  return createElement('a', { ...rest, ...current, href: to, onClick });
}

/** Sends a signed-out visitor to sign in, and back to this page afterwards. */
export function toSignIn(): void {
  const here = window.location.pathname;
  // Already there (a second refusal, or the sign-in page's own): the way back in ?next stays.
  if (here !== '/sign-in') navigate(`/sign-in?next=${encodeURIComponent(here)}`, true);
}

/** Where to go after signing in: the page that sent the visitor, if it is one of ours, else their requests. */
export function afterSignIn(): string {
  const next = new URLSearchParams(window.location.search).get('next');
  return next && /^\/(?!\/)[\w\-/]*$/.test(next) ? next : '/requests';
}
