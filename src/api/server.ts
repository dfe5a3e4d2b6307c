import { createServer as createHttpServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import { answerClientError } from './client-error.js';

export type ServerOptions = {
  readonly app: RequestListener;
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** How long in-flight requests get to finish before their connections are cut. */
  readonly shutdownTimeoutMs?: number;
  /** Run in order once HTTP has drained: the projection engine, the queue, the pools. */
  readonly onClose?: ReadonlyArray<() => Promise<void>>;
};

export type RunningServer = {
  readonly server: Server;
  /** Resolves with the bound port (PORT=0 picks a free one). */
  listen(port: number, host?: string): Promise<number>;
  /**
   * Stops accepting connections, lets in-flight requests finish (cutting them at the deadline),
   * then runs the close hooks. Idempotent: a second call returns the first call's promise.
   */
  close(): Promise<{ readonly forced: boolean }>;
};

export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

export function createServer(options: ServerOptions): RunningServer {
  const server = createHttpServer(options.app);
  // An express app keeps the problem type base in its locals; a bare listener has none.
  const locals = 'locals' in options.app ? (options.app.locals as Record<string, unknown>) : {};
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(locals, err, socket));
  const inFlight = new Set<ServerResponse>();
  let closing: Promise<{ forced: boolean }> | null = null;

  server.on('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    // A keep-alive connection would hold server.close() open until its idle timeout.
    if (closing) res.setHeader('Connection', 'close');
    res.on('close', () => {
      inFlight.delete(res);
      if (closing) server.closeIdleConnections();
    });
  });

  const drainHttp = async (): Promise<boolean> => {
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    const timeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
    let forced = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        forced = true;
        options.logger.warn({ inFlight: inFlight.size, timeoutMs }, 'shutdown deadline passed; closing the remaining connections');
        server.closeAllConnections();
        resolve();
      }, timeoutMs);
    });
    await Promise.race([closed, deadline]);
    clearTimeout(timer);
    await closed;
    return forced;
  };

  const close = async (): Promise<{ forced: boolean }> => {
    const forced = server.listening ? await drainHttp() : false;
    const errors: unknown[] = [];
    for (const hook of options.onClose ?? []) {
      try {
        await hook();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'some resources failed to close');
    return { forced };
  };

  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      }),
    close: () => (closing ??= close()),
  };
}
