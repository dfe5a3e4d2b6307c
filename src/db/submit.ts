import pg from 'pg';

/**
 * `client.query(config)` for the hot path, without node-postgres's copy of the config: given an
 * object, it copies it property by property (Object.defineProperties over its descriptors) into a
 * slow-mode object on every call (docs/decisions.md, "Event store"). A Query built from the text
 * takes no copy; a prepared statement's name is set on it afterwards.
 */
export function submit<R extends pg.QueryResultRow>(client: pg.ClientBase, config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
  return new Promise<pg.QueryResult<R>>((resolve, reject) => {
    const query = new pg.Query<R>(config.text, config.values ?? [], (error, result) => (error ? reject(error) : resolve(result)));
    if (config.name !== undefined) Object.assign(query, { name: config.name });
    client.query(query);
  });
}
