/** A small HTTP client for tests that speak to the service as a client would. */
export type Reply = { status: number; headers: Headers; body: Record<string, unknown> };

export function client(baseUrl: string) {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    token?: string,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  return {
    post: (path: string, body?: unknown, token?: string, headers?: Record<string, string>) => call('POST', path, body, token, headers),
    get: (path: string, token?: string) => call('GET', path, undefined, token),
    /** POST /graphql; answers the GraphQL result (data, errors) with the HTTP status. */
    graphql: async (token: string | undefined, query: string, variables: Record<string, unknown> = {}) =>
      call('POST', '/graphql', { query, variables }, token),
  };
}
