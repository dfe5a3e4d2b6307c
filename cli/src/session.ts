import { createApi, DssProblem, ok, Organization } from '@dss/sdk';
import { readConfig, serviceUrl, writeConfig, type Config } from './config.js';
import { CliError, Exit, notSignedIn } from './errors.js';

/** The stored user session: for the routes a user calls (GET /org/v1/organizations, POST /org/v1/token). */
export async function userSession(): Promise<{ readonly config: Config; readonly baseUrl: string; readonly userToken: string }> {
  const config = await readConfig();
  const baseUrl = serviceUrl(config);
  if (!config.userToken) throw notSignedIn();
  return { config, baseUrl, userToken: config.userToken };
}

/** POST /org/v1/token: the member token of one organization, for a signed-in user. */
export async function memberToken(baseUrl: string, userToken: string, organizationId: string): Promise<string> {
  const member = await ok(createApi({ baseUrl, token: userToken }).POST('/org/v1/token', { body: { organizationId } }));
  if (!member.token) throw new Error('the service set the member token as a cookie instead of answering it');
  return member.token;
}

/**
 * The organization chosen with `dss use`, as its member. A member token that is missing, expired or
 * refused (401) is replaced by signing in again with the user token, and stored for the next run.
 */
export async function memberOrganization(): Promise<Organization> {
  const { config, baseUrl, userToken } = await userSession();
  const organizationId = config.organizationId;
  if (!organizationId) throw new CliError(Exit.unauthenticated, 'no_organization', 'choose one: dss orgs, then dss use <organizationId>');
  let token = config.memberToken;
  const renew = async (): Promise<string> => {
    token = await memberToken(baseUrl, userToken, organizationId);
    await writeConfig({ ...(await readConfig()), memberToken: token });
    return token;
  };
  return new Organization({
    baseUrl,
    token: () => token ?? renew(),
    fetch: async (request) => {
      const again = request.clone();
      const response = await fetch(request);
      if (response.status !== 401) return response;
      let renewed: string;
      try {
        renewed = await renew();
      } catch (error) {
        // The token route's own refusal (the session ended, the membership too) is the answer the caller sees.
        if (error instanceof DssProblem) return answerOf(error);
        throw error;
      }
      await response.body?.cancel();
      again.headers.set('authorization', `Bearer ${renewed}`);
      return fetch(again);
    },
  });
}

const answerOf = (problem: DssProblem): Response =>
  Response.json(problem.problem, {
    status: problem.status,
    headers: {
      'content-type': 'application/problem+json',
      ...(problem.retryAfter === undefined ? {} : { 'retry-after': String(Math.ceil(problem.retryAfter)) }),
    },
  });
