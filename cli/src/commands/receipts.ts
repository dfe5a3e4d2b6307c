import { receiptsOf, verifyReceipts, type ReceiptKeys, type ReceiptPayload } from '@dss/sdk';
import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { readConfig } from '../config.js';
import { CliError, Exit, usage } from '../errors.js';
import { examples } from '../help.js';
import { outputOf } from '../output.js';

/** receipts verify: a request's signed consent receipts, checked offline (docs/receipts.md). */
export function receiptCommands(dss: Command): void {
  const receipts = examples(
    dss.command('receipts').description("A request's signed consent receipts (docs/receipts.md)"),
    'dss receipts verify receipts.json --jwks jwks.json',
  );

  examples(
    receipts
      .command('verify')
      .description(
        "Verify a request's receipts offline: each signature, with the service's keys, and the chain from first to last. " +
          'Exits 4 naming the first receipt that fails.',
      )
      .argument('<file>', 'a receipts file, as GET /org/v1/requests/{requestId}/receipts answers it ("-" reads stdin)')
      .option('--jwks <file>', "the service's keys: a saved copy of its /.well-known/jwks.json (else fetched from the file's issuer)")
      .action(async (file: string, options: { jwks?: string }, command: Command) => {
        const out = outputOf(command);
        const document = await jsonOf(file, 'receipts file');
        let jws: string[];
        try {
          jws = receiptsOf(document);
        } catch (error) {
          throw usage(`${sourceName(file)}: ${(error as Error).message}`);
        }
        const { issuer, requestId } = document as { issuer?: unknown; requestId?: unknown };
        const fileIssuer = typeof issuer === 'string' && issuer ? issuer : undefined;
        const fileRequest = typeof requestId === 'string' && requestId ? requestId : undefined;
        // No receipt, nothing to check a key against: an empty list verifies without fetching any.
        const keys: { jwks: ReceiptKeys; source: string } =
          options.jwks !== undefined
            ? { jwks: jwksOf(await jsonOf(options.jwks, '--jwks file'), options.jwks), source: options.jwks }
            : jws.length === 0
              ? { jwks: { keys: [] }, source: 'none needed' }
              : await fetchKeys(fileIssuer ?? (await configuredUrl()));
        // The file's issuer pins the receipts' iss: keys fetched from where a file points prove only that its signer holds them.
        const verdict = await verifyReceipts(jws, keys.jwks, { issuer: fileIssuer, request: fileRequest });
        if (!verdict.ok) {
          const { index, seq, reason, message } = verdict;
          if (out.mode === 'ndjson') out.item({ ok: false, index, seq, reason, message }, () => message);
          throw new CliError(Exit.refused, 'not_verified', `${message} (index ${index}, reason ${reason})`);
        }
        const last: ReceiptPayload | undefined = verdict.payloads.at(-1);
        const summary = {
          ok: true,
          count: verdict.count,
          issuer: last?.iss ?? fileIssuer ?? null,
          request: last?.request ?? fileRequest ?? null,
          seq: last?.seq ?? null,
          status: last?.status ?? null,
          keys: keys.source,
        };
        out.item(summary, () => {
          if (!last) return `0 receipts in ${sourceName(file)}: nothing to verify`;
          const count = verdict.count === 1 ? '1 receipt' : `${verdict.count} receipts`;
          const verb = verdict.count === 1 ? 'verifies' : 'verify';
          const from = `(issuer ${last.iss}, keys from ${keys.source})`;
          return `${count} of request ${last.request} ${verb}: signatures and chain, first to last ${from}`;
        });
      }),
    'dss receipts verify receipts.json --jwks jwks.json',
    'dss receipts verify receipts.json          # keys from {issuer}/.well-known/jwks.json',
    'dss receipts verify receipts.json | jq .status',
  );
}

const sourceName = (path: string): string => (path === '-' ? 'stdin' : path);

/** A file's JSON (stdin for "-"); one that cannot be read or parsed is a usage error (exit 2). */
async function jsonOf(path: string, what: string): Promise<unknown> {
  const source = sourceName(path);
  let text: string;
  try {
    text = path === '-' ? await readStdin() : await readFile(path, 'utf8');
  } catch (error) {
    throw usage(`cannot read the ${what} ${source}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw usage(`the ${what} ${source} is not JSON: ${(error as Error).message}`);
  }
}

function jwksOf(value: unknown, path: string): ReceiptKeys {
  const keys = typeof value === 'object' && value !== null ? (value as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys)) throw usage(`the --jwks file ${sourceName(path)} is not a JWK Set: an object with a "keys" list`);
  return value as ReceiptKeys;
}

/** For a file that names no issuer: the service dss is set up for ($DSS_URL, else the URL dss login stored). */
async function configuredUrl(): Promise<string> {
  const url = process.env.DSS_URL || (await readConfig()).url;
  if (!url) throw usage('the file names no issuer: pass --jwks <file>, or set DSS_URL (or dss login) to fetch the keys from the service');
  return url;
}

/** GET {issuer}/.well-known/jwks.json: the receipt keys, the current one and earlier ones, by kid. */
async function fetchKeys(issuer: string): Promise<{ jwks: ReceiptKeys; source: string }> {
  if (!URL.canParse(issuer) || !/^https?:$/.test(new URL(issuer).protocol))
    throw usage(`the issuer ${JSON.stringify(issuer)} is not an http(s) URL: pass --jwks <file>`);
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json`;
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError')
      throw new CliError(Exit.unavailable, 'unreachable', `${url} did not answer within 30 s`);
    throw error;
  }
  if (!response.ok) {
    await response.body?.cancel();
    const exit = response.status === 429 || response.status >= 500 ? Exit.unavailable : Exit.refused;
    throw new CliError(exit, 'jwks_unavailable', `${url} answered ${response.status}: save the keys and pass --jwks <file>`);
  }
  let value: unknown;
  try {
    value = await response.json();
  } catch {
    throw new CliError(Exit.failure, 'bad_jwks', `${url} did not answer JSON`);
  }
  const keys = typeof value === 'object' && value !== null ? (value as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys)) throw new CliError(Exit.failure, 'bad_jwks', `${url} did not answer a JWK Set`);
  return { jwks: value as ReceiptKeys, source: url };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
