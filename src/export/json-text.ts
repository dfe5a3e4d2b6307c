import { randomUUID } from 'node:crypto';

/** Bytes that go out as one base64 JSON string, read chunk by chunk while they are written. */
export class Base64Text {
  constructor(readonly chunks: AsyncIterable<Uint8Array>) {}
}

const isAsyncIterable = (v: unknown): v is AsyncIterable<unknown> => typeof v === 'object' && v !== null && Symbol.asyncIterator in v;

/**
 * R-EXP-03: the text JSON.stringify would write for `value`, in pieces, where an async iterable
 * in it is an array written item by item and a Base64Text a string written chunk by chunk. So a
 * value of any size goes out holding one item or chunk at a time. Everything else is stringified
 * as a whole: the parts that arrive later are put in as a placeholder that no data can contain
 * (a fresh random id) and written in its place, in the order JSON.stringify met them.
 */
export async function* jsonPieces(value: unknown): AsyncGenerator<string> {
  const later: Array<AsyncIterable<unknown> | Base64Text> = [];
  const placeholder = `later:${randomUUID()}`;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (!(v instanceof Base64Text) && !isAsyncIterable(v)) return v;
    later.push(v);
    return placeholder;
  });
  const parts = text.split(JSON.stringify(placeholder));
  for (const [i, part] of parts.entries()) {
    if (part) yield part;
    const next = later[i];
    if (next instanceof Base64Text) yield* base64Pieces(next.chunks);
    else if (next) yield* arrayPieces(next);
  }
}

async function* arrayPieces(items: AsyncIterable<unknown>): AsyncGenerator<string> {
  let separator = '[';
  for await (const item of items) {
    yield separator;
    yield* jsonPieces(item);
    separator = ',';
  }
  yield separator === '[' ? '[]' : ']';
}

/** Base64 of the concatenated chunks: each piece encodes whole groups of 3 bytes, the rest waits for the next chunk. */
async function* base64Pieces(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  yield '"';
  let carry = Buffer.alloc(0);
  for await (const chunk of chunks) {
    const bytes = carry.length ? Buffer.concat([carry, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const whole = bytes.length - (bytes.length % 3);
    if (whole) yield bytes.subarray(0, whole).toString('base64');
    carry = Buffer.from(bytes.subarray(whole));
  }
  yield `${carry.toString('base64')}"`;
}
