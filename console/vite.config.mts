import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

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
  plugins: [react()],
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
