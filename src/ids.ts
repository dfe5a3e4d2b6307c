/**
 * Every id the service hands out is a UUID (R-HTTP-11). A string that is not one names
 * nothing: callers answer not_found without asking the database, which would reject it.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (s: string): boolean => UUID.test(s);
