import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestHandler, Response } from 'express';
import { mailboxPage } from './dev-mailbox.js';

/** Where `npm run build:web` (vite build, run by `npm start` first) writes the pages; ignored by git. */
export const WEB_DIST = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/**
 * R-WEB-01 (contract §11): every page and asset is served with this policy: nothing inline, nothing
 * from elsewhere, never framed.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const ID = '[A-Za-z0-9-]{1,64}';
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/**
 * The paths of contract §11, each answered with the app's index.html (the app routes in the page).
 * An organization's pages name it by its UUID, so `/org/v1/...` stays the API's.
 */
const PAGE_PATHS: readonly RegExp[] = [
  '/',
  '/sign-in',
  '/requests',
  `/requests/${ID}`,
  '/vault',
  '/account',
  '/organizations',
  `/org/${UUID}`,
  `/org/${UUID}/(requests|manifests|members|settings|webhooks)`,
  `/org/${UUID}/requests/${ID}`,
  // Contract §13: an app's authorization's consent step (its uid is oidc-provider's, url-safe).
  '/oauth/interaction/[\\w-]{1,128}',
  // Contract §13: where an organization's identity provider sends the person back ("Continue with").
  '/oauth/partner-sign-in/callback',
].map((p) => new RegExp(`^${p === '/' ? '/' : `${p}/?`}$`));

const isLoopback = (address: string | undefined): boolean =>
  address !== undefined && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));

/** Vite's hashed asset names: one flat directory, no path separators. */
const ASSET = /^\/assets\/([A-Za-z0-9_.-]+)$/;

export type PagesOptions = {
  /** The built pages (index.html and assets/). */
  readonly distDir?: string;
  /** The embedded outbox file, shown at /dev/mailbox; null (production, SMTP) serves no mailbox. */
  readonly outbox: string | null;
};

/**
 * GET and HEAD of the pages of contract §11, their hashed assets, and on the embedded default the
 * development mailbox. Not API routes: anything else goes on to the API (and its 404 problem).
 */
export function webPages({ distDir = WEB_DIST, outbox }: PagesOptions): RequestHandler {
  let index: Buffer | null = null;
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.path;
    // R-WEB-06: the codes in it sign anyone in, so only a browser on this machine sees it.
    if (outbox !== null && path === '/dev/mailbox' && isLoopback(req.socket.remoteAddress)) {
      mailboxPage(outbox).then((html) => {
        guarded(res).set('Cache-Control', 'no-store').type('html').send(html);
      }, next);
      return;
    }
    const asset = ASSET.exec(path)?.[1];
    if (asset !== undefined) {
      guarded(res).sendFile(asset, { root: join(distDir, 'assets'), immutable: true, maxAge: '365d', dotfiles: 'deny' }, (err) => {
        if (err && !res.headersSent) next();
      });
      return;
    }
    if (!PAGE_PATHS.some((p) => p.test(path))) return next();
    // Read once built: a service started before `npm run build:web` serves the pages as soon as they exist.
    (index ? Promise.resolve(index) : readFile(join(distDir, 'index.html'))).then(
      (html) => {
        index = html;
        guarded(res).set('Cache-Control', 'no-cache').type('html').send(html);
      },
      () => {
        guarded(res).status(503).type('text').send('The pages are not built: run `npm run build:web` (npm start does it first).\n');
      },
    );
  };
}

/** The headers every page and asset carries (R-WEB-01); the API reference's page its own policy (R-DOCS-07). */
export function guarded(res: Response, policy: string = CONTENT_SECURITY_POLICY): Response {
  return res.set({
    'Content-Security-Policy': policy,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  });
}
