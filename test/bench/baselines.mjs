// Baseline servers for the benchmarks, each in a process of its own: `node baselines.mjs http|express`.
// They answer a fixed JSON body the size of a group record, and print their port when listening.
import http from 'node:http';
import express from 'express';

const BODY = JSON.stringify({
  _id: '0526b34a-032d-4940-99eb-de74094a6154',
  name: 'bench',
  description: '',
  roles: ['apiread'],
  created: '2026-11-22T04:31:56.890Z',
  createdBy: 'admin',
  lastUpdated: '2026-11-22T04:31:56.890Z',
  lastUpdatedBy: 'admin',
});
const kind = process.argv[2];

let server;
if (kind === 'http') {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(BODY) });
    res.end(BODY);
  });
} else if (kind === 'express') {
  const app = express();
  app.get('/user-management/groups/:groupId', (_req, res) => {
    res.type('json').send(BODY);
  });
  server = http.createServer(app);
} else {
  console.error('usage: baselines.mjs http|express');
  process.exit(2);
}
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
