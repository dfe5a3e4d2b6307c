import { connect } from 'node:net';

/**
 * One HTTP/1.1 request written byte for byte, so a test can send what fetch refuses to: invalid
 * UTF-8 in the target, the headers or the body, headers of any size, any Content-Type.
 */
export type RawRequest = {
  readonly method: string;
  /** Path and query exactly as they go on the wire (already percent-encoded, or deliberately not). */
  readonly target: Buffer;
  readonly headers: ReadonlyArray<readonly [string, Buffer]>;
  readonly body?: Buffer;
};

export type RawReply = { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly text: string };

const CRLF = '\r\n';

/** The request as written: Content-Length is computed, the connection closed after one answer. */
export function rawBytes(host: string, request: RawRequest): Buffer {
  const lines: Buffer[] = [Buffer.from(`${request.method} `), request.target, Buffer.from(` HTTP/1.1${CRLF}Host: ${host}${CRLF}`)];
  for (const [name, value] of request.headers) lines.push(Buffer.from(`${name}: `), value, Buffer.from(CRLF));
  if (request.body) lines.push(Buffer.from(`Content-Length: ${request.body.length}${CRLF}`));
  lines.push(Buffer.from(`Connection: close${CRLF}${CRLF}`));
  if (request.body) lines.push(request.body);
  return Buffer.concat(lines);
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const end = body.indexOf(CRLF, at);
    if (end < 0) break;
    const size = parseInt(body.subarray(at, end).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(body.subarray(end + 2, end + 2 + size));
    at = end + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** The bytes after any interim answers (`100 Continue` to an Expect header): the final answer's. */
function final(bytes: Buffer): Buffer {
  let at = 0;
  while (/^HTTP\/1\.[01] 1\d\d /.test(bytes.subarray(at, at + 13).toString('latin1'))) {
    const end = bytes.indexOf(CRLF + CRLF, at);
    if (end < 0) break;
    at = end + 4;
  }
  return bytes.subarray(at);
}

/** Whether the bytes hold a whole answer: its head and as much body as Content-Length says, or the last chunk. */
function complete(bytes: Buffer): boolean {
  const split = bytes.indexOf(CRLF + CRLF);
  if (split < 0) return false;
  const head = bytes.subarray(0, split).toString('latin1').toLowerCase();
  const length = /\r\ncontent-length: *(\d+)/.exec(head);
  if (length) return bytes.length - split - 4 >= Number(length[1]);
  return head.includes('transfer-encoding: chunked') && bytes.subarray(-5).toString('latin1') === `0${CRLF}${CRLF}`;
}

function parseReply(bytes: Buffer): RawReply {
  const split = bytes.indexOf(CRLF + CRLF);
  if (split < 0) throw new Error(`no complete answer: ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...headerLines] = bytes.subarray(0, split).toString('latin1').split(CRLF);
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = bytes.subarray(split + 4);
  const body = headers['transfer-encoding'] === 'chunked' ? dechunk(rest) : rest;
  return { status, headers, text: body.toString('utf8') };
}

/** Sends the request on a connection of its own and reads the answer until the server closes it. */
export function sendRaw(baseUrl: string, request: RawRequest, timeoutMs = 20_000): Promise<RawReply> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    const socket = connect(Number(url.port), url.hostname);
    const settle = () => {
      clearTimeout(timer);
      try {
        resolve(parseReply(final(Buffer.concat(received))));
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      // A whole answer ends the wait: a server that answered early (413) may never read the rest of our body.
      if (complete(final(Buffer.concat(received)))) socket.destroy();
    });
    // A server may answer (413, 401) and close before reading the whole body: the write then
    // fails, but the answer already arrived.
    socket.on('error', () => socket.destroy());
    socket.on('close', settle);
    // Not end(): a client's half-close before the answer makes node drop a request still being handled.
    socket.write(rawBytes(url.host, request));
  });
}
