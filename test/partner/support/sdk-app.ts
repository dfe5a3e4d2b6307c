import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import { PartnerApp, type PartnerTokens } from '@dss/sdk';
import { expect } from 'chai';
import type { OrgClient } from '../../api/org/org-client.js';
import { driver, MANUAL_NAME_SLOT, type User } from '../../api/support/driver.js';
import { listening } from '../../support/listening.js';

/**
 * An organization's app as a small web server on the SDK's PartnerApp (contract §13): `/start`
 * pushes its request and sends the browser to the hosted page, `/callback` takes the tokens back and
 * reads the partner plane, `/read` and `/refresh` try again later. Its pages are plain text, so a
 * browser test reads what the app got.
 */
export async function sdkApp(serviceUrl: string) {
  const signing = await generateKeyPair('Ed25519', { extractable: true });
  const dpopKeys = await generateKeyPair('Ed25519', { extractable: true });
  const kid = `sdk-app-${Math.random().toString(36).slice(2)}`;
  let app: PartnerApp | undefined;
  let manifestId = '';
  let verifier = '';
  let tokens: PartnerTokens | undefined;

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    const text = (status: number, body: string) => res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
    void (async () => {
      if (!app) return text(503, 'not registered yet');
      if (url.pathname === '/start') {
        const pushed = await app.authorize(manifestId);
        verifier = pushed.verifier;
        return res.writeHead(302, { location: pushed.url.href }).end();
      }
      if (url.pathname === '/callback') {
        if (url.searchParams.get('error')) return text(200, `Not shared: ${url.searchParams.get('error')}`);
        tokens = await app.complete(url, verifier);
        const connection = await app.connection(tokens);
        const granted = connection.items.flatMap((item) => item.records.filter((r) => r.status === 'available'));
        const reads = await Promise.all(granted.map((r) => app!.record(tokens!, r.resourceId)));
        return text(200, `Connected to request ${tokens.requestId}. Read: ${reads.map((r) => `${r.name} v${r.version}`).join(', ')}`);
      }
      if (url.pathname === '/read' && tokens) {
        const connection = await app.connection(tokens).catch((e: unknown) => e);
        return text(200, connection instanceof Error ? `Read refused: ${(connection as { status?: number }).status}` : 'Read ok');
      }
      if (url.pathname === '/refresh' && tokens) {
        const refreshed = await app.refresh(tokens.refreshToken!).catch((e: unknown) => e);
        return text(200, refreshed instanceof Error ? `Refresh refused: ${(refreshed as { error?: string }).error}` : 'Refresh ok');
      }
      return text(404, 'no such page');
    })().catch((e: unknown) => text(500, `The app failed: ${e instanceof Error ? e.message : String(e)}`));
  });
  const origin = `http://127.0.0.1:${await listening(server, '127.0.0.1')}`;
  const redirectUri = `${origin}/callback`;

  return {
    origin,
    redirectUri,
    jwks: { keys: [{ ...(await exportJWK(signing.publicKey)), kid, alg: 'Ed25519', use: 'sig' }] },
    /** Registered as clientId, it asks for manifestId from now on. */
    async use(clientId: string, manifest: string): Promise<void> {
      manifestId = manifest;
      app = await PartnerApp.discover({ baseUrl: serviceUrl, clientId, signingKey: signing.privateKey, kid, dpopKeys, redirectUri });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Acme Bank with a manifest asking for a name, Ann with her passport name in her vault, and Acme's
 * app "Acme onboarding" on the SDK, registered with `registration` besides its redirect URI and keys.
 */
export async function acmeOnboarding(
  service: { readonly base: string; readonly api: OrgClient },
  registration: Record<string, unknown> = {},
): Promise<{ readonly app: Awaited<ReturnType<typeof sdkApp>>; readonly ann: User }> {
  const { api } = service;
  const founder = await api.user();
  const member = await api.signIn(founder.token, await api.organization(founder.token, 'Acme Bank'));
  const d = driver({ api: () => api, member: () => member });
  const { manifestId } = await d.manifest([{ ...MANUAL_NAME_SLOT, required: true }], 'P90D', { name: 'Open an account' });
  const ann = await api.user();
  await d.createDoc(ann, {
    name: 'My passport name',
    schemaRef: `${service.base}/schemas/core/PersonFullName.json`,
    data: { givenName: 'Ann', familyName: 'Lee' },
  });
  const app = await sdkApp(service.base);
  const registered = await api.post('/org/v1/apps', member, {
    name: 'Acme onboarding',
    redirectUris: [app.redirectUri],
    jwks: app.jwks,
    ...registration,
  });
  expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
  await app.use(registered.body.clientId as string, manifestId);
  return { app, ann };
}
