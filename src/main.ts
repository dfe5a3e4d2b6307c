import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp } from './api/app.js';
import { openBackends } from './backends.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { allProjectors, ProjectionEngine } from './projections/index.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  const logger = createLogger(config.logLevel);
  const backends = await openBackends(config);
  const engine = new ProjectionEngine({ db: backends.db, store: backends.store, projectors: allProjectors, logger });
  await engine.start();

  const server = createApp().listen(config.port);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  logger.info({ port, events: backends.store.kind, readModels: backends.db.kind }, `listening on http://localhost:${port}`);

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await engine.stop();
    await backends.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e: unknown) => {
  process.stderr.write(`failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
