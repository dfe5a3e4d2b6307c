import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../../src/api/openapi/document.js';

const pointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Checks an answer against the success schema its operation documents, as test/api/openapi-typed.test.ts
 * does for the flow it runs: for the operations a flow of their own reaches (OPERATIONS_CHECKED_ELSEWHERE).
 */
export function documentedAnswers() {
  const ajv = new Ajv2020({ strict: false, strictRequired: true, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(structuredClone(openApiDocument), 'openapi');
  const checked = new Set<string>();
  return {
    checked,
    /** Null when `body` is what `method template` documents for `status` (JSON); else why not. */
    invalid(method: string, template: string, status: number, body: unknown): string | null {
      checked.add(`${method} ${template}`);
      const at = `/paths/${pointer(template)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
      return ajv.validate({ $ref: `openapi#${at}` }, body) ? null : JSON.stringify(ajv.errors);
    },
  };
}

/** The operations test/partner's flows reach (an app's DPoP-bound token, a consent's cookie) and check with documentedAnswers. */
export const OPERATIONS_CHECKED_ELSEWHERE: ReadonlySet<string> = new Set([
  'GET /.well-known/oauth-authorization-server',
  'GET /oauth/interaction/{uid}/asked',
  'POST /oauth/interaction/{uid}/open',
  'POST /oauth/interaction/{uid}/finish',
  'POST /oauth/interaction/{uid}/deny',
  'GET /partner/v1/connection',
  'GET /partner/v1/records/{resourceId}',
]);

/** The operations of "Continue with <organization>", which test/web/partner-sign-in.test.ts's browser reaches and checks. */
export const PARTNER_SIGN_IN_OPERATIONS: ReadonlySet<string> = new Set([
  'POST /oauth/interaction/{uid}/partner-sign-in',
  'POST /oauth/partner-sign-in/complete',
  'POST /oauth/partner-sign-in/link',
  'GET /oauth/partner-sign-in/jwks',
]);
