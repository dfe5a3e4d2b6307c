import type { Duplex } from 'node:stream';
import { PROBLEM_CONTENT_TYPE, problemType } from './problems.js';

type Refused = { readonly status: number; readonly title: string; readonly detail: string };

/** Node's HTTP parser refuses these before express runs; each answers like any other refusal. */
const BY_PARSER_CODE: Readonly<Record<string, Refused>> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    title: 'Request header fields too large',
    detail: 'the request line and headers are too large (at most 16 KiB)',
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, title: 'Request timeout', detail: 'the request did not arrive in time' },
};
const MALFORMED: Refused = { status: 400, title: 'Invalid request', detail: 'the request is not well-formed HTTP/1.1' };

/**
 * R-FUZZ-01: a request node's parser refuses (headers over its limit, bytes no HTTP request has)
 * answers problem+json and closes, instead of node's bare status line; nothing of the input is echoed.
 */
export function answerClientError(locals: Readonly<Record<string, unknown>>, err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, title, detail } = BY_PARSER_CODE[err.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify({ type: problemType(locals, 'invalid_request'), title, status, detail, code: 'invalid_request' });
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
