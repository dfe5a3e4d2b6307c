import express, { type Express } from 'express';

/** The HTTP surface. Routes come in as the domain grows; this is the frame they hang on. */
export function createApp(): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  return app;
}
