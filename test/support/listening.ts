import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts `server` on a free port of `host` (every address when none) and answers the port. */
export async function listening(server: Server, host?: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}
