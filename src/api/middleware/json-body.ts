import express, { type RequestHandler } from 'express';
import { refuseTransport } from '../../commands/refusal.js';
import { sendRefusal } from '../refusals.js';

const JSON_TYPES = ['application/json', 'application/*+json'];

/** R-HTTP-06: a JSON body over 1 MiB answers 413. */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

const parse = express.json({ limit: JSON_BODY_LIMIT_BYTES, type: JSON_TYPES, strict: true });

/** Content-Length 0 is no body: a bodiless POST (cancel, seal) needs no Content-Type. */
function hasBody(headers: { 'transfer-encoding'?: string; 'content-length'?: string }): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * For routes that take JSON: a body of another type answers 415, malformed JSON 400 and an
 * oversized body 413 (through the error handler). Upload routes take raw bytes and do not use it.
 */
export function jsonBody(): RequestHandler {
  return (req, res, next) => {
    if (hasBody(req.headers) && !req.is(JSON_TYPES)) {
      sendRefusal(res, refuseTransport('unsupported_media_type', 'send the body as application/json'));
      return;
    }
    parse(req, res, next);
  };
}
