import express, { type RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';
import { refuse, refuseTransport } from '../../commands/refusal.js';
import { sendRefusal } from '../refusals.js';
import { restOperation, unknownInput } from './known-input.js';

const JSON_TYPES = ['application/json', 'application/*+json'];

/** R-HTTP-06: a JSON body over 1 MiB answers 413. */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

/** §10.4: how deep a body's objects and arrays may nest, the body itself the first level. */
export const MAX_JSON_DEPTH = 64;

export const TOO_DEEP = `the body is nested more than ${MAX_JSON_DEPTH} levels deep`;

/** The requests whose body nests deeper than MAX_JSON_DEPTH, measured on the raw text as it arrived. */
const tooDeep = new WeakSet<IncomingMessage>();

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENING: ReadonlySet<number> = new Set([0x7b, 0x5b]); // { [
const CLOSING: ReadonlySet<number> = new Set([0x7d, 0x5d]); // } ]

/**
 * One flat pass over UTF-8 JSON text (no byte of a multi-byte character is ASCII), so a depth is
 * known before anything walks the parsed value recursively: JSON.stringify, a validator, a driver.
 */
function nestsDeeperThan(bytes: Buffer, bound: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (OPENING.has(b)) {
      if (++depth > bound) return true;
    } else if (CLOSING.has(b)) depth--;
  }
  return false;
}

const parse = express.json({
  limit: JSON_BODY_LIMIT_BYTES,
  type: JSON_TYPES,
  strict: true,
  verify: (req, _res, bytes) => {
    if (nestsDeeperThan(bytes, MAX_JSON_DEPTH)) tooDeep.add(req);
  },
});

/** Whether the request's JSON body nests deeper than MAX_JSON_DEPTH (GraphQL answers it in its own format). */
export const bodyTooDeep = (req: IncomingMessage): boolean => tooDeep.has(req);

/** RFC 8259 §8.1: JSON is UTF-8; in another charset a bracket need not be an ASCII byte, and the depth scan would miss it. */
function utf8OrUnnamed(contentType: string | undefined): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/** Content-Length 0 is no body: a bodiless POST (cancel, seal) needs no Content-Type. */
function hasBody(headers: { 'transfer-encoding'?: string; 'content-length'?: string }): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * For routes that take JSON: a body of another type or charset answers 415, malformed JSON 400 and an
 * oversized body 413 (through the error handler). On a REST route, a body nested too deep
 * (§10.4) and a field or query parameter the route does not define (§10.3) answer 400.
 * Upload routes take raw bytes and do not use it.
 */
export function jsonBody(): RequestHandler {
  return (req, res, next) => {
    if (hasBody(req.headers) && !req.is(JSON_TYPES)) {
      sendRefusal(res, refuseTransport('unsupported_media_type', 'send the body as application/json'));
      return;
    }
    if (hasBody(req.headers) && !utf8OrUnnamed(req.headers['content-type'])) {
      sendRefusal(res, refuseTransport('unsupported_media_type', 'send JSON as UTF-8 (charset=utf-8, or no charset)'));
      return;
    }
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      const operation = restOperation(req);
      if (operation && bodyTooDeep(req)) return sendRefusal(res, refuse('invalid_request', TOO_DEEP));
      const unknown = unknownInput(req, operation);
      if (unknown) return sendRefusal(res, unknown);
      next();
    });
  };
}
