import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CONTENT_SECURITY_POLICY } from '../web/pages.js';

/** Swagger UI as its package ships it, served from node_modules by the service: no CDN (R-DOCS-07). */
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * The pages' policy, but for data: images: Swagger UI's style sheet draws its icons as data: URIs.
 * An image runs no script and applies no style; script-src and style-src stay 'self' (docs/security.md).
 */
export const DOCS_CSP = CONTENT_SECURITY_POLICY.split('; ')
  .map((directive) => (directive === "img-src 'self'" ? "img-src 'self' data:" : directive))
  .join('; ');

/** No inline script: the page loads the renderer, then this file, which points it at the document. */
const START = "SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });\n";

/** The files the page loads, under /docs/: Swagger UI's own from its package, and the one that starts it. */
export const DOCS_FILES: Readonly<Record<string, { readonly type: string } & ({ readonly path: string } | { readonly text: string })>> = {
  'swagger-ui.css': { type: 'text/css', path: join(SWAGGER_UI, 'swagger-ui.css') },
  'swagger-ui-bundle.js': { type: 'text/javascript', path: join(SWAGGER_UI, 'swagger-ui-bundle.js') },
  'start.js': { type: 'text/javascript', text: START },
};

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Data-sharing service: REST API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<main id="swagger-ui"></main>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/start.js"></script>
</body>
</html>
`;
