/**
 * A name someone else chose, made inert for a mail: a dot, colon or at sign inside a run of text is
 * bracketed ("evil[.]example"), so no mail client turns the name into a link or an address. Also the
 * full-width and ideographic forms, which some clients read as dots, colons and at signs.
 */
export function inertName(name: string): string {
  return name.replace(/(?<=\S)[.:@\u3002\uFF0E\uFF61\uFF1A\uFF20](?=\S)/gu, (c) => `[${c}]`);
}
