import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import express from 'express';
import type { Express, Request, Response, NextFunction } from 'express';
import type { Logger } from '@nap/telemetry';

export interface ConsoleFilesOptions {
  /** The built console (`console/dist`); `NAP_CONSOLE_DIR`, else the folder beside the gateway's own. */
  dir?: string;
  logger?: Logger;
}

/**
 * Where the built console is when nothing says: `console/dist` of the same checkout or image
 * (`gateway/dist/` or `gateway/src/` → `../../console/dist`). Found by path, so that the gateway
 * never imports the console's code.
 */
export function defaultConsoleDir(): string {
  return path.resolve(__dirname, '../../console/dist');
}

/** Whether the console in `dir` is built (its page can be served). */
export function consoleBuilt(dir: string): boolean {
  return existsSync(path.join(dir, 'index.html'));
}

/** Hashed file names change with their content: a browser may keep them for a year without asking. */
const ASSET_MAX_AGE = '365d';

const NOT_BUILT = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>NAP console not built</title></head>
<body>
<main>
<h1>The console is not built</h1>
<p>The gateway serves the operations console from the files <code>npm run build</code> makes in
<code>console/dist</code>. Run <code>npm run build</code> at the root of the repository (or point
<code>NAP_CONSOLE_DIR</code> at the built console) and reload this page.</p>
<p>The HTTP interface works without it: <a href="/docs">/docs</a>.</p>
</main>
</body>
</html>
`;

/**
 * `GET /console/…`: the console's files. Hashed assets are cached `immutable` for a year; any
 * other path under `/console/` is a page of the single-page application (`/console/jobs/<id>`
 * reloads into it), answered with `index.html`, which browsers revalidate every time so that a
 * new build is picked up at once. `/` goes to `/console/`.
 */
export function mountConsole(app: Express, options: ConsoleFilesOptions = {}): void {
  const dir = options.dir ?? defaultConsoleDir();
  const index = path.join(dir, 'index.html');
  let warned = false;

  app.get('/', (_req, res) => {
    res.redirect(302, '/console/');
  });
  app.use('/console/assets', express.static(path.join(dir, 'assets'), { index: false, immutable: true, maxAge: ASSET_MAX_AGE }));
  // files at the root of the build (the icon), revalidated like the page
  app.use('/console', express.static(dir, { index: false, redirect: false, cacheControl: false, setHeaders: noCache }));
  app.get('/console{/*page}', async (req: Request, res: Response, next: NextFunction) => {
    // /console alone: the application's relative URLs need the trailing slash
    if (req.path === '/console') {
      res.redirect(301, '/console/');
      return;
    }
    // an asset that is not there is the platform's 404, never the page (a stale page asking for an old build's file)
    if (req.path.startsWith('/console/assets/')) {
      next();
      return;
    }
    let html: Buffer;
    try {
      html = await readFile(index);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        next(err);
        return;
      }
      if (!warned) options.logger?.warn({ dir }, 'The console is not built (no index.html): run npm run build, or set NAP_CONSOLE_DIR');
      warned = true;
      res.status(404).type('html').send(NOT_BUILT);
      return;
    }
    res.setHeader('cache-control', 'no-cache');
    res.type('html').send(html);
  });
}

function noCache(res: Response): void {
  res.setHeader('cache-control', 'no-cache');
}
