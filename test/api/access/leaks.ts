/** What an error body must never show (contract §0): a stack frame, SQL, a source path. */
const LEAKS: ReadonlyArray<[string, RegExp]> = [
  ['a stack frame', /\bat [\w$.<>]+ \(|\bat file:\/\//],
  ['a source path', /\.[cm]?[jt]s:\d+|node_modules|\/src\/|\/work\//],
  ['SQL', /\bselect\b[^"]*\bfrom\b|\binsert into\b|\bupdate \w+ set\b|relation "|syntax error at or near|duplicate key value/i],
];

/** The first kind of leak in a body, or null. */
export function leaks(body: unknown): string | null {
  const text = JSON.stringify(body);
  return LEAKS.find(([, pattern]) => pattern.test(text))?.[0] ?? null;
}
