import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import type { Plugin } from 'vite';

/**
 * Fails the build when a chunk imports what the bundle does not hold: a browser cannot load a bare
 * `@nap/contracts/dist/…` import. Rollup leaves one when the file is missing while it builds (the
 * contracts package rebuilt at the same time), and every page would then fail to load.
 */
function everyImportBundled(): Plugin {
  return {
    name: 'nap-every-import-bundled',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        const missing = [...chunk.imports, ...chunk.dynamicImports].filter((name) => !(name in bundle));
        if (missing.length > 0)
          this.error(
            `${chunk.fileName} imports ${missing.join(', ')}, which the bundle does not hold: build @nap/contracts first (npm run build)`,
          );
      }
    },
  };
}

/** Routes of the platform that `npm run dev -w console` passes on to a platform started with `npm start`. */
const PLATFORM_ROUTES = [
  '/login',
  '/logout',
  '/whoami',
  '/operations-manager',
  '/workflow_engine',
  '/automation-studio',
  '/formbuilder',
  '/mop',
];

// The console is served by the gateway at /console/: every asset URL is absolute under it, and
// asset names carry a content hash so that the gateway can let browsers cache them for a year.
export default defineConfig({
  base: '/console/',
  plugins: [react(), everyImportBundled()],
  resolve: {
    // @rjsf/core imports Ajv's validator for its test registry alone; the console never loads it (see the stand-in)
    alias: { '@rjsf/validator-ajv8': '/src/components/schema-form/without-ajv.ts' },
  },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    // the polyfill would be an inline script, which the console's CSP forbids; every browser the console supports has modulepreload
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 900,
  },
  server: {
    proxy: Object.fromEntries(PLATFORM_ROUTES.map((route) => [route, { target: 'http://127.0.0.1:3000' }])),
  },
});
