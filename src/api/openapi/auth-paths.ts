import { asUser, JSON_ERRORS, jsonAnswer, jsonRequest, object, problems, text } from './components.js';

const email = text(320, { description: 'An email address; a malformed one is 400 invalid_email' });
const code = text(64, { description: 'The one-time code from the mail, exactly as sent' });
const success = jsonAnswer('Sent, or not: the answer is the same for known and unknown addresses', object({ success: { const: true } }));
const token = { token: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } };
const session = jsonAnswer('A token of the same session, expiring later', object(token));

/** The login and session routes (R-AUTH-*). */
export const authPaths = {
  '/auth/send-otp': {
    post: {
      summary: 'Mail a login code',
      requestBody: jsonRequest(object({ email })),
      responses: { '200': success, ...problems(...JSON_ERRORS, 429, 503) },
    },
  },
  '/auth/verify-otp': {
    post: {
      summary: 'Trade a login code for tokens',
      description:
        'With the header X-CSRF: 1 from the service’s own origin (its pages, contract §11) the session is set as an HttpOnly, ' +
        'SameSite=Strict cookie instead, and the answer leaves the token out.',
      requestBody: jsonRequest(object({ email, code })),
      responses: {
        '200': jsonAnswer('A token of a new session', object({ ...token, isNewUser: { type: 'boolean' } })),
        ...problems(...JSON_ERRORS, 401, 429, 503),
      },
    },
  },
  '/auth/sign-out': {
    post: {
      summary: 'End the current session (contract §11); a browser’s session cookie is cleared',
      security: asUser,
      responses: { '200': jsonAnswer('Signed out', object({ signedOut: { const: true } })), ...problems(401, 403, 503) },
    },
  },
  '/auth/renew': {
    post: { summary: 'Renew the session’s tokens', security: asUser, responses: { '200': session, ...problems(401, 503) } },
  },
  '/auth/verify-email/send': {
    post: {
      summary: 'Mail a code to confirm another address',
      security: asUser,
      requestBody: jsonRequest(object({ email })),
      responses: { '200': success, ...problems(...JSON_ERRORS, 401, 409, 429, 503) },
    },
  },
  '/auth/verify-email/confirm': {
    post: {
      summary: 'Confirm an address with its code',
      security: asUser,
      requestBody: jsonRequest(object({ email, code })),
      responses: { '200': jsonAnswer('Confirmed', object({ verified: { const: true } })), ...problems(...JSON_ERRORS, 401, 409, 429, 503) },
    },
  },
};
