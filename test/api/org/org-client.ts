import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Reply } from '../../support/http.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';

/** The organization plane as a client speaks to it: every verb, a bearer token, JSON both ways. */
export function orgClient(baseUrl: string, mailer: RecordingMailer) {
  const call = async (method: string, path: string, token?: string, body?: unknown): Promise<Reply> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  const api = {
    get: (path: string, token?: string) => call('GET', path, token),
    post: (path: string, token?: string, body?: unknown) => call('POST', path, token, body),
    put: (path: string, token?: string, body?: unknown) => call('PUT', path, token, body),
    del: (path: string, token?: string) => call('DELETE', path, token),

    /** A logged-in user; registered unless asked otherwise. */
    async user(options: { register?: boolean; email?: string } = {}): Promise<{ email: string; token: string; expiresAt: string }> {
      const email = options.email ?? `o${randomBytes(5).toString('hex')}@example.com`;
      await call('POST', '/auth/send-otp', undefined, { email });
      const login = await call('POST', '/auth/verify-otp', undefined, { email, code: mailer.lastCodeFor(email) });
      expect(login.status, JSON.stringify(login.body)).to.equal(200);
      const { token, expiresAt } = login.body as { token: string; expiresAt: string };
      if (options.register !== false) {
        const r = await call('POST', '/graphql', token, { query: 'mutation { user { register(input: {}) { userId } } }' });
        expect(r.status).to.equal(200);
      }
      return { email, token, expiresAt };
    },

    async organization(userToken: string, name = 'Acme'): Promise<string> {
      const r = await call('POST', '/org/v1/organizations', userToken, { name });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return (r.body.organization as { organizationId: string }).organizationId;
    },

    /** POST /org/v1/token, expecting 200: the member token. */
    async signIn(userToken: string, organizationId: string): Promise<string> {
      const r = await call('POST', '/org/v1/token', userToken, { organizationId });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      return r.body.token as string;
    },
  };
  return api;
}

export type OrgClient = ReturnType<typeof orgClient>;

/** Status and problem code: what the contract fixes for an error. */
export const problem = (r: Reply) => ({ status: r.status, code: r.body.code });

export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/**
 * For a suite of limits: the service with these settings (and this clock, when the suite moves time
 * by hand), a mailer, and an org client on it.
 */
export async function startOrgService(options: {
  readonly env: Record<string, string>;
  readonly now?: () => Date;
}): Promise<{ service: TestService; api: OrgClient; mailer: RecordingMailer }> {
  const mailer = new RecordingMailer();
  const service = await startTestService({ domain: { mailer, env: options.env, ...(options.now ? { now: options.now } : {}) } });
  return { service, api: orgClient(service.url, mailer), mailer };
}
