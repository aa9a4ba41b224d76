import { execFileSync } from 'node:child_process';

/** A self-signed certificate for 127.0.0.1 and localhost and its key, valid `days`, made with openssl. */
export function makeCertificate(cert: string, key: string, days: number, name = 'localhost'): void {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      String(days),
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
}
