import { Router } from 'express';
import { refuse } from '../commands/refusal.js';
import { SERVICE_PROBLEMS, type ProblemCode } from './problems.js';
import { refusals, sendRefusal } from './refusals.js';

type Page = { readonly meaning: string; readonly fix: string };

/** What each problem `type` says, in plain words: one page per code, so no `type` URI is a dead link. */
const PAGES: { readonly [C in ProblemCode]: Page } = {
  invalid_request: {
    meaning:
      'The request is not one the route takes: a field or query parameter is missing, of the wrong type, out of its range, ' +
      'or not one the route defines; or the body is not valid JSON, or nests more than 64 levels deep.',
    fix:
      'Read the detail: it names the field or parameter. Correct its spelling, type or value as the OpenAPI document ' +
      '(/openapi.json) describes it, and send the request again.',
  },
  invalid_email: {
    meaning: 'The address is not a plausible single email address.',
    fix: 'Send one address such as name@example.com, without spaces, display names or control characters.',
  },
  unsupported_item: {
    meaning: 'The item is of a kind the route does not serve: for example a download of a kept document, which has no bytes.',
    fix: 'Use the route for that kind of item, as the detail says: a kept document is read on the copies route.',
  },
  invalid_code: {
    meaning: 'The one-time code is wrong, expired, already used, or was never sent to this address.',
    fix: 'Ask for a new code and enter it exactly as the mail shows it, within its lifetime.',
  },
  unauthenticated: {
    meaning:
      'No valid token came with the request: it is missing, malformed, expired, of an ended session, ' +
      'or the wrong kind of token for the route.',
    fix:
      'Sign in again for a fresh token, and send it as "Authorization: Bearer <token>". ' +
      'Organization routes need a token from POST /org/v1/token.',
  },
  forbidden: {
    meaning: 'The caller is known but may not do this: a permission is missing, or the account is not registered yet.',
    fix: 'Ask a member with member_manage to grant the permission the route needs, or register the account first.',
  },
  participant_ineligible: {
    meaning: 'The person may not, or may no longer, answer for the party the record is about.',
    fix: 'Ask the person to share a record for a party they may answer for; nothing was copied.',
  },
  adoption_refused: {
    meaning:
      'The record may not be copied or opened now: the connection is not active, the slot does not grant it, ' +
      'lacks the keep verb, or the record no longer resolves.',
    fix: 'Check the request’s state and the slot’s grants; keep only what the person shares on an active connection.',
  },
  not_found: {
    meaning: 'There is no such resource, or it is not the caller’s to see; both answer alike.',
    fix: 'Check the id and that the token belongs to the organization or person that holds it.',
  },
  conflict: {
    meaning: 'The request does not fit the resource’s current state (for example a request that is no longer pending).',
    fix: 'Read the resource again and act on its current state.',
  },
  document_schema_exists: {
    meaning: 'The vault already holds a live document of this schema, and one of the two documents is unique per vault.',
    fix: 'Update the existing document instead of creating another one.',
  },
  no_schema_definition: {
    meaning: 'The document names no schema: neither schemaRef nor documentSchema was given.',
    fix: 'Give exactly one of schemaRef (a built-in schema’s URL) or documentSchema (a JSON Schema).',
  },
  both_schema_definitions: {
    meaning: 'The document names both a schemaRef and a documentSchema.',
    fix: 'Give exactly one of the two.',
  },
  schema_not_found: {
    meaning: 'The schema the document names, or a schema it references, is not known to the service.',
    fix: 'Use a built-in schema listed at /schemas/core, or embed every referenced schema in documentSchema.',
  },
  schema_invalid: {
    meaning: 'The embedded schema is not a valid JSON Schema (Draft 2020-12, strict mode).',
    fix: 'Correct the schema as the detail says: unknown keywords and formats are refused.',
  },
  data_invalid: {
    meaning: 'The data does not validate against the document’s schema.',
    fix: 'Correct the data at the instance paths the error lists, and send it again.',
  },
  version_conflict: {
    meaning: 'The copy or record moved on since it was read: the expected version is not the current one.',
    fix: 'Read the copies again, re-apply the change to the current version, and send it with the versions just read.',
  },
  payload_too_large: {
    meaning: 'The body is larger than the route takes: 1 MiB for JSON, MAX_FILE_BYTES for a file.',
    fix: 'Send a smaller body.',
  },
  unsupported_media_type: {
    meaning: 'The body is of a type, character set or encoding the route does not take.',
    fix: 'Send JSON as application/json in UTF-8, and files unencoded (no Content-Encoding).',
  },
  org_sealed: {
    meaning: 'The organization’s key is sealed (cold), so nothing sealed with it can be read or written now.',
    fix: 'A member signs in with POST /org/v1/token, which warms the key; then try again.',
  },
  rate_limited: {
    meaning: 'The caller sent more requests than its allowance.',
    fix: 'Wait the number of seconds the Retry-After header gives, then try again; send fewer requests.',
  },
  too_many_attempts: {
    meaning: 'Too many wrong codes were tried; even the right code is refused for now.',
    fix: 'Wait the seconds Retry-After gives, then ask for a new code.',
  },
  email_unavailable: {
    meaning: 'The mail could not be handed over to the mail server; nothing was counted against the sender.',
    fix: 'Try again shortly.',
  },
  projection_stalled: {
    meaning: 'The change is recorded, but a read model it needs is stalled on an event it cannot apply, so it cannot show it yet.',
    fix: 'Do not repeat the command. Report the request id to the operator, whom /readyz tells which read model stalled.',
  },
  service_unavailable: {
    meaning: 'A store the service depends on cannot be reached right now.',
    fix: 'Try again after the seconds Retry-After gives, if any, or shortly.',
  },
  internal_error: {
    meaning: 'The service failed to handle the request; this is the service’s fault, not the caller’s.',
    fix: 'Report the requestId of the answer to the operator; retry later.',
  },
  not_ready: {
    meaning: 'The service is running but not ready: a backing store is unreachable or a read model is behind or stalled.',
    fix: 'Send traffic elsewhere, or wait; the checks in the answer say what is not ready.',
  },
};

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escaped = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function html(code: ProblemCode): string {
  const { status, title } =
    code in refusals ? refusals[code as keyof typeof refusals] : SERVICE_PROBLEMS[code as keyof typeof SERVICE_PROBLEMS];
  const { meaning, fix } = PAGES[code];
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escaped(title)}</title></head>
<body>
<main>
<h1>${escaped(title)}</h1>
<p>Problem <code>${escaped(code)}</code>, answered with HTTP status ${status}.</p>
<h2>What it means</h2>
<p>${escaped(meaning)}</p>
<h2>How to fix it</h2>
<p>${escaped(fix)}</p>
<p>Every problem carries a <code>detail</code> naming what was wrong, and a <code>requestId</code> to quote when reporting it.</p>
</main>
</body>
</html>
`;
}

/** Pages are static text: no script, style, frame or form of any origin. */
const CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** GET /problems/{code}: the page a problem's `type` URI names (RFC 9457 §3.1.1); an unknown code is 404. */
export function problemPages(): Router {
  const router = Router();
  const pages = new Map(Object.keys(PAGES).map((code) => [code, html(code as ProblemCode)]));
  router.get('/problems/:code', (req, res) => {
    const page = pages.get(req.params.code);
    if (page === undefined) return sendRefusal(res, refuse('not_found', 'no such problem type'));
    res
      .set({
        'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': 'public, max-age=3600',
      })
      .type('text/html')
      .send(page);
  });
  return router;
}
