import path from 'node:path';
import express from 'express';
import type { Express } from 'express';
import { renderAsyncApi } from '@nap/contracts';
import { buildOpenApi } from './openapi';

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>NAP API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: false });`;

/** `make()`'s JSON, made at the first call and kept. */
function jsonOnce(make: () => unknown): () => string {
  let text: string | undefined;
  return () => (text ??= JSON.stringify(make()));
}

/**
 * The API's documents, built from the catalog at their first request and kept (building the OpenAPI
 * document took ~70 ms of CPU at every start, for a page few callers read): `GET /openapi.json`,
 * `GET /asyncapi.json`, and `GET /docs`, Swagger UI served from the installed `swagger-ui-dist`
 * package, no CDN.
 */
export function mountDocs(app: Express): void {
  const openapi = jsonOnce(buildOpenApi);
  app.get('/openapi.json', (_req, res) => {
    res.type('json').send(openapi());
  });
  const asyncapi = jsonOnce(renderAsyncApi);
  app.get('/asyncapi.json', (_req, res) => {
    res.type('json').send(asyncapi());
  });
  const assets = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  app.get('/docs', (_req, res) => {
    res.type('html').send(PAGE);
  });
  app.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  app.use('/docs/assets', express.static(assets, { index: false, maxAge: '1h' }));
}
