// The image's HEALTHCHECK command: `node packages/runtime/dist/probe-cli.js [ready|live]`.
// Exit 0 when this container's process answers healthy, 1 otherwise, with one line saying why.
import { probeHealth } from './probe';

const kind = process.argv[2] === 'live' ? 'live' : 'ready';
void probeHealth(process.env, kind).then(({ ok, message }) => {
  (ok ? process.stdout : process.stderr).write(`${message}\n`);
  process.exit(ok ? 0 : 1);
});
