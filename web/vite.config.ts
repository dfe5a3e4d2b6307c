import react from '@vitejs/plugin-react';
import { defineConfig, type ProxyOptions } from 'vite';

/** The service `npm run dev` proxies to: `npm start` on its default port unless SERVICE_URL says otherwise. */
const service = process.env.SERVICE_URL ?? 'http://localhost:3000';

/** API paths the dev server passes to the service; the pages themselves come from Vite. */
const API = ['/auth', '/graphql', '/org/v1', '/vault/files', '/vault/export', '/schemas', '/openapi.json', '/dev/mailbox', '/.well-known'];

const toService: ProxyOptions = {
  target: service,
  // The service takes a cookie-signed call from its own origin only: the dev server speaks for it.
  configure: (proxy) => {
    proxy.on('proxyReq', (req) => req.setHeader('origin', new URL(service).origin));
  },
};

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Contract §11: nothing inline (a CSP without 'unsafe-inline'), so no asset becomes a data: URL either.
    assetsInlineLimit: 0,
  },
  server: { proxy: Object.fromEntries(API.map((path): [string, ProxyOptions] => [path, toService])) },
});
