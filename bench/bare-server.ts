/**
 * The bare HTTP limit (bench/limits.ts): the least a JSON-over-HTTP write service on this stack
 * does, as a plain express 5 + pg server would do it. POST /events inserts the body as one row and
 * answers 201 with the row's id; no auth, validation, events or logging. Run as its own process
 * (`node --import tsx bench/bare-server.ts`, DATABASE_URL and POOL_SIZE set); prints `{"port":N}`
 * when listening.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import { exitWithParent } from './child-process.js';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_SIZE ?? 10),
  application_name: 'dss-bench-bare-server',
});
// An idle client that loses its server must not crash the process.
pool.on('error', () => undefined);
await pool.query('CREATE TABLE IF NOT EXISTS http_events (id bigserial PRIMARY KEY, stream text NOT NULL, data jsonb NOT NULL)');

const app = express();
app.use(express.json());
app.post('/events', async (req, res) => {
  const body = req.body as unknown;
  if (typeof body !== 'object' || body === null) {
    res.status(400).json({ error: 'a JSON object' });
    return;
  }
  const stream = 'stream' in body && typeof body.stream === 'string' ? body.stream : 'bench';
  const r = await pool.query<{ id: string }>('INSERT INTO http_events (stream, data) VALUES ($1, $2) RETURNING id', [stream, body]);
  res.status(201).json({ id: r.rows[0]!.id });
});

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});

exitWithParent(async () => {
  // Keep-alive connections from the load generator would hold close() open.
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await pool.end();
});
