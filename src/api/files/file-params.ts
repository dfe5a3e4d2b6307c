import type { Request } from 'express';
import { isAnyRefusal, refuse, refuseTransport, type AnyRefusal } from '../../commands/refusal.js';
import type { FileMeta, NewFile, UploadBody } from '../../files/index.js';
import { textProblem, type TextKind } from '../fields.js';
import { unknownInput } from '../middleware/known-input.js';

const MAX_FILE_NAME = 255;
const MAX_LABEL = 200;
/** An entity id; anything that is no UUID is answered 404 further in, as an unknown entity. */
const MAX_OWNER = 64;
const MAX_MIME_TYPE = 255;
const DEFAULT_MIME_TYPE = 'application/octet-stream';

/** RFC 9110 media-type: type/subtype with parameters, each value a token or a quoted string. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(
  `^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|"(?:[^"\\\\\\x00-\\x1f\\x7f]|\\\\[\\t\\x20-\\x7e])*"))*$`,
);

/** POST /vault/files?fileName=..&label=..&owner=.. with the Content-Type of the bytes. */
export function newFileParams(req: Request): NewFile | AnyRefusal {
  const meta = fileMeta(req);
  if (isAnyRefusal(meta)) return meta;
  const label = optionalText(req.query.label, 'label', MAX_LABEL, 'shown');
  if (isAnyRefusal(label)) return label;
  const owner = optionalText(req.query.owner, 'owner', MAX_OWNER, 'line');
  if (isAnyRefusal(owner)) return owner;
  return { ...meta, label, owner };
}

/** An upload's query, the route's own (§10.3), and the Content-Type of the bytes: every upload route reads it first. */
export function fileMeta(req: Request): FileMeta | AnyRefusal {
  const unknown = unknownInput(req);
  if (unknown) return unknown;
  const fileName = fileNameOf(req.query.fileName);
  if (isAnyRefusal(fileName)) return fileName;
  const mimeType = mimeTypeOf(req.get('content-type'));
  if (isAnyRefusal(mimeType)) return mimeType;
  if (!identityEncoded(req.get('content-encoding')))
    return refuseTransport('unsupported_media_type', 'send the file unencoded (no Content-Encoding)');
  return { fileName, mimeType };
}

/** GET ?version=N: a positive integer, or absent for the newest. */
export function versionParam(req: Request): number | null | AnyRefusal {
  const raw = req.query.version;
  if (raw === undefined) return null;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,8}$/.test(raw)) return refuse('invalid_request', 'version must be a positive integer');
  return Number(raw);
}

/** The request as the files service reads it: bytes as they arrive, never parsed or buffered here. */
export function uploadBody(req: Request): UploadBody {
  const length = req.get('content-length');
  return {
    declaredBytes: length === undefined ? null : Number(length),
    // Stopping early must not destroy the request: the socket still has to carry the 413.
    chunks: req.iterator({ destroyOnReturn: false }),
  };
}

function fileNameOf(raw: unknown): string | AnyRefusal {
  if (raw === undefined || raw === '') return refuse('invalid_request', 'fileName is required');
  if (typeof raw !== 'string') return refuse('invalid_request', 'fileName must be given once');
  if ([...raw].length > MAX_FILE_NAME) return refuse('invalid_request', `fileName is longer than ${MAX_FILE_NAME} characters`);
  // Bidirectional controls disguise an extension (`evil\u202Efdp.exe`).
  const problem = textProblem(raw, 'shown');
  if (problem) return refuse('invalid_request', `fileName ${problem}`);
  if (/[/\\]/.test(raw)) return refuse('invalid_request', 'fileName must not contain path separators');
  if (raw.trim() === '' || raw === '.' || raw === '..') return refuse('invalid_request', 'fileName is not a file name');
  return raw;
}

function optionalText(raw: unknown, name: string, max: number, kind: TextKind): string | null | AnyRefusal {
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string') return refuse('invalid_request', `${name} must be given once`);
  if ([...raw].length > max) return refuse('invalid_request', `${name} is longer than ${max} characters`);
  const problem = textProblem(raw, kind);
  if (problem) return refuse('invalid_request', `${name} ${problem}`);
  return raw;
}

function mimeTypeOf(header: string | undefined): string | AnyRefusal {
  if (header === undefined || header.trim() === '') return DEFAULT_MIME_TYPE;
  const value = header.trim();
  if (value.length > MAX_MIME_TYPE || !MEDIA_TYPE.test(value)) return refuse('invalid_request', 'Content-Type is not a media type');
  return value;
}

function identityEncoded(header: string | undefined): boolean {
  return header === undefined || header.trim() === '' || header.trim().toLowerCase() === 'identity';
}
