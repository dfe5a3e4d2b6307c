import { session as sessionExample } from './examples.js';
import { APPENDS, asUser, exactly, JSON_ERRORS, jsonAnswer, jsonRequest, object, problems, tagged, text, timestamp } from './components.js';

const email = text(320, { format: 'email', description: 'An email address; a malformed one is 400 invalid_email' });
const code = text(64, { description: 'The one-time code from the mail, exactly as sent' });
const emailExample = { email: 'ann@example.com' };
const codeExample = { email: 'ann@example.com', code: '123456' };
const success = jsonAnswer('Sent, or not: the answer is the same for known and unknown addresses', exactly({ success: { const: true } }), {
  success: true,
});
const tokenFields = {
  token: { type: 'string', description: 'The access token; absent when the session went into the browser’s cookie (§11)' },
  expiresAt: timestamp('When the session ends unless renewed'),
};

/** The login and session routes (R-AUTH-*). */
export const authPaths = tagged('Sign-in', {
  '/auth/send-otp': {
    post: {
      operationId: 'sendLoginCode',
      summary: 'Mail a login code',
      requestBody: jsonRequest(object({ email }), emailExample),
      responses: { '200': success, ...problems(...JSON_ERRORS, 'invalid_email', 429, 503, 'email_unavailable') },
    },
  },
  '/auth/verify-otp': {
    post: {
      operationId: 'verifyLoginCode',
      summary: 'Trade a login code for tokens',
      description:
        'With the header X-CSRF: 1 from the service’s own origin (its pages, contract §11) the session is set as an HttpOnly, ' +
        'SameSite=Strict cookie instead, and the answer leaves the token out.',
      requestBody: jsonRequest(object({ email, code }), codeExample),
      responses: {
        '200': jsonAnswer(
          'A token of a new session',
          exactly({ ...tokenFields, isNewUser: { type: 'boolean', description: 'No user yet: call the GraphQL user.register' } }, [
            'token',
          ]),
          { ...sessionExample, isNewUser: false },
        ),
        ...problems(...JSON_ERRORS, 'invalid_email', 'invalid_code', 403, 409, 'too_many_attempts', ...APPENDS),
      },
    },
  },
  '/auth/sign-out': {
    post: {
      operationId: 'signOut',
      summary: 'End the current session (contract §11); a browser’s session cookie is cleared',
      security: asUser,
      responses: {
        '200': jsonAnswer('Signed out', exactly({ signedOut: { const: true } }), { signedOut: true }),
        ...problems(401, 403, ...APPENDS),
      },
    },
  },
  '/auth/renew': {
    post: {
      operationId: 'renewSession',
      summary: 'Renew the session’s tokens',
      security: asUser,
      responses: {
        '200': jsonAnswer('A token of the same session, expiring later', exactly(tokenFields, ['token']), sessionExample),
        ...problems(401, ...APPENDS),
      },
    },
  },
  '/auth/verify-email/send': {
    post: {
      operationId: 'sendEmailVerification',
      summary: 'Mail a code to confirm another address',
      security: asUser,
      requestBody: jsonRequest(object({ email }), emailExample),
      responses: { '200': success, ...problems(...JSON_ERRORS, 'invalid_email', 401, 409, 503, 'email_unavailable') },
    },
  },
  '/auth/verify-email/confirm': {
    post: {
      operationId: 'confirmEmailVerification',
      summary: 'Confirm an address with its code',
      security: asUser,
      requestBody: jsonRequest(object({ email, code }), codeExample),
      responses: {
        '200': jsonAnswer('Confirmed', exactly({ verified: { const: true } }), { verified: true }),
        ...problems(...JSON_ERRORS, 'invalid_email', 401, 'invalid_code', 409, 'too_many_attempts', ...APPENDS),
      },
    },
  },
});
