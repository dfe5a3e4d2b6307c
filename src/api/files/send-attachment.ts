import type { Response } from 'express';
import { attachment } from './content-disposition.js';

export type AttachmentBytes = { readonly fileName: string; readonly mimeType: string; readonly bytes: Buffer };

/** Someone's file as a download: never run, sniffed or cached in this origin. */
export function sendAttachment(res: Response, file: AttachmentBytes, headers: Readonly<Record<string, string>> = {}): void {
  res.status(200);
  // Set on the raw response: express would append a charset to the client's own Content-Type.
  res.setHeader('Content-Type', file.mimeType);
  res.setHeader('Content-Length', file.bytes.byteLength);
  res.setHeader('Content-Disposition', attachment(file.fileName));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('Cache-Control', 'private, no-store');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(file.bytes);
}
