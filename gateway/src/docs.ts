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

/**
 * The API's documents, built once from the catalog: `GET /openapi.json`, `GET /asyncapi.json`, and
 * `GET /docs`, Swagger UI served from the installed `swagger-ui-dist` package, no CDN.
 */
export function mountDocs(app: Express): void {
  const openapi = buildOpenApi();
  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  const asyncapi = renderAsyncApi();
  app.get('/asyncapi.json', (_req, res) => {
    res.json(asyncapi);
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
