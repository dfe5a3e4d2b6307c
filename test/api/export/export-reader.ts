import { createHash, type Hash } from 'node:crypto';

/** A line of the archive; a file version's `content` is read as its digest (ExportReader). */
// Archive lines are data of the shapes docs/decisions.md lists; tests read them loosely.
export type Line = Record<string, any> & { kind: string };

/** What a file version's base64 `content` decoded to, without ever holding it. */
export type ContentDigest = { readonly sha256: string; readonly bytes: number };

const CONTENT = '"content":"';

/**
 * Reads GET /vault/export as a client with little memory would: as the bytes arrive, every line
 * but the strings of file `content` is parsed as JSON, and each such string is decoded and hashed
 * chunk by chunk instead of kept, so an archive of any size goes through in bounded memory.
 * A file version's `content` comes out as its ContentDigest. (Only file lines carry such a key in
 * the suites that use this: no document of theirs has a `content` field.)
 */
export class ExportReader {
  readonly lines: Line[] = [];
  private readonly text = new TextDecoder('utf-8', { fatal: true });
  /** The current line without its content strings. */
  private rest = '';
  private content: { hash: Hash; carry: string; bytes: number } | null = null;

  push(chunk: Uint8Array): void {
    this.scan(this.text.decode(chunk, { stream: true }));
  }

  /** The lines read; throws when the archive stopped inside a line. */
  end(): Line[] {
    this.scan(this.text.decode());
    if (this.rest !== '' || this.content) throw new Error('the archive ends inside a line');
    return this.lines;
  }

  private scan(text: string): void {
    let i = 0;
    while (i < text.length) {
      if (this.content) {
        // base64 holds no quote: the string ends at the next one.
        const quote = text.indexOf('"', i);
        this.feed(text.slice(i, quote === -1 ? text.length : quote));
        if (quote === -1) return;
        this.rest += JSON.stringify(this.digest());
        i = quote + 1;
        continue;
      }
      const newline = text.indexOf('\n', i);
      const end = newline === -1 ? text.length : newline;
      const before = this.rest.length;
      this.rest += text.slice(i, end);
      const at = this.rest.indexOf(CONTENT, Math.max(0, before - CONTENT.length + 1));
      if (at !== -1) {
        // What came after the opening quote belongs to the string: read it again in content mode.
        const after = this.rest.length - (at + CONTENT.length);
        this.rest = this.rest.slice(0, at + CONTENT.length - 1);
        this.content = { hash: createHash('sha256'), carry: '', bytes: 0 };
        i = end - after;
        continue;
      }
      if (newline === -1) return;
      this.lines.push(JSON.parse(this.rest) as Line);
      this.rest = '';
      i = newline + 1;
    }
  }

  private feed(base64: string): void {
    const content = this.content!;
    const text = content.carry + base64;
    const whole = text.length - (text.length % 4);
    const bytes = Buffer.from(text.slice(0, whole), 'base64');
    content.hash.update(bytes);
    content.bytes += bytes.length;
    content.carry = text.slice(whole);
  }

  private digest(): ContentDigest {
    const content = this.content!;
    if (content.carry !== '') throw new Error('a content string is not whole base64');
    this.content = null;
    return { sha256: content.hash.digest('hex'), bytes: content.bytes };
  }
}

/** Reads a response body with an ExportReader, telling `onChunk` of each chunk as it arrives. */
export async function readExport(body: ReadableStream<Uint8Array>, onChunk: () => void = () => undefined): Promise<Line[]> {
  const reader = new ExportReader();
  for await (const chunk of body) {
    reader.push(chunk);
    onChunk();
  }
  return reader.end();
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
