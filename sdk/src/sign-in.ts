import { createApi, ok, Organization, type ClientOptions } from './client.js';

export type UserSession = { readonly token: string; readonly expiresAt?: string; readonly isNewUser?: boolean };

/**
 * Signs a user in by email code: the service mails a code, `code` gets it (a prompt, a mailbox
 * reader) and it is traded for a user token. A wrong code is a DssProblem invalid_code; five
 * wrong codes end the code (too_many_attempts).
 */
export async function signIn(
  options: Omit<ClientOptions, 'token'> & { readonly email: string; readonly code: (email: string) => string | Promise<string> },
): Promise<UserSession> {
  const api = createApi(options);
  await ok(api.POST('/auth/send-otp', { body: { email: options.email } }));
  const code = (await options.code(options.email)).trim();
  const session = await ok(api.POST('/auth/verify-otp', { body: { email: options.email, code } }));
  if (!session.token) throw new Error('the service set the session as a cookie: sign in without the X-CSRF header');
  return { ...session, token: session.token };
}

/** A member's client of one organization, signed in with a user token (POST /org/v1/token; it warms the organization's key). */
export async function signInMember(
  options: Omit<ClientOptions, 'token'> & { readonly userToken: string; readonly organizationId: string },
): Promise<Organization> {
  const api = createApi({ ...options, token: options.userToken });
  const member = await ok(api.POST('/org/v1/token', { body: { organizationId: options.organizationId } }));
  if (!member.token) throw new Error('the service set the member token as a cookie: call it with a bearer token, not a browser session');
  return new Organization({ ...options, token: member.token });
}
