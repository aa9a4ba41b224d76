import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { counterOnce, gaugeOnce } from '@nap/telemetry';
import type { Logger, Registry } from '@nap/telemetry';
import { errorMessage } from '@nap/util';

/** How often the gateway looks whether its certificate or key file changed; a renewal is served within this time. */
export const DEFAULT_TLS_RELOAD_CHECK_MS = 60_000;

/** A certificate chain and its key as the server takes them, and when the certificate (the first of the chain) expires. */
export interface TlsPair {
  cert: Buffer;
  key: Buffer;
  /** notAfter of the leaf certificate, epoch ms. */
  expiresAt: number;
}

/** The PEM file of a TLS setting; an error naming the setting and the file when it cannot be read. */
function pemFile(file: string, setting: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`${setting} names ${file}, which cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
  }
}

/** Reads the pair; an error naming the setting whose file cannot be read or holds no certificate. */
export function readTlsPair(files: { certFile: string; keyFile: string }): TlsPair {
  const cert = pemFile(files.certFile, 'NAP_TLS_CERT_FILE');
  const key = pemFile(files.keyFile, 'NAP_TLS_KEY_FILE');
  let expiresAt: number;
  try {
    expiresAt = Date.parse(new X509Certificate(cert).validTo);
  } catch (err) {
    throw new Error(`NAP_TLS_CERT_FILE names ${files.certFile}, which holds no PEM certificate (${errorMessage(err)})`, { cause: err });
  }
  return { cert, key, expiresAt };
}

/** What changes when a file is replaced: certbot and Kubernetes secret volumes swap files (new inode) or rewrite them. */
function fingerprint(file: string): string {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch (err) {
    return `missing:${(err as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}

export interface TlsReloadOptions {
  files: { certFile: string; keyFile: string };
  /** The pair the server started with. */
  initial: TlsPair;
  /** Puts a renewed pair in service (the server's `setSecureContext`); throws when the key does not match the certificate. */
  apply(pair: TlsPair): void;
  checkMs?: number;
  log?: Logger;
  /** Where `nap_tls_certificate_expiry_timestamp_seconds` and `nap_tls_certificate_reloads_total` go. */
  registry?: Registry;
}

/**
 * Serves a renewed certificate without a restart: every `checkMs` the certificate and key files are
 * looked at, and when either changed both are read again and put in service for new connections.
 * A pair that cannot be used (a key written before its certificate, a file half written, a key of
 * another certificate) is refused with a warning and the served pair stays; it is tried again when
 * the files change again. The served certificate's expiry is a gauge, so that an alert comes before
 * it lapses (a renewal that never happened, or that this gateway could not take).
 */
export class TlsReloader {
  private timer: NodeJS.Timeout | undefined;
  private seen: string;
  private served: TlsPair;
  private counted: (outcome: 'ok' | 'failed') => void = () => undefined;

  constructor(private readonly options: TlsReloadOptions) {
    this.served = options.initial;
    this.seen = this.fingerprints();
    if (options.registry) {
      const served = () => this.served;
      gaugeOnce(options.registry, {
        name: 'nap_tls_certificate_expiry_timestamp_seconds',
        help: 'When the certificate the gateway serves (NAP_TLS_CERT_FILE) expires, epoch seconds',
        aggregator: 'min',
        collect() {
          this.set(served().expiresAt / 1000);
        },
      });
      const reloads = counterOnce(options.registry, {
        name: 'nap_tls_certificate_reloads_total',
        help: 'Renewed certificate files the gateway put in service (ok) or refused (failed: the served certificate stays)',
        labelNames: ['outcome'],
      });
      for (const outcome of ['ok', 'failed']) reloads.inc({ outcome }, 0);
      this.counted = (outcome) => reloads.inc({ outcome });
    }
  }

  /** The pair in service now. */
  get current(): TlsPair {
    return this.served;
  }

  start(): void {
    this.timer = setInterval(() => this.check(), this.options.checkMs ?? DEFAULT_TLS_RELOAD_CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Looks at the files once; answers whether a renewed pair went into service. */
  check(): boolean {
    const now = this.fingerprints();
    if (now === this.seen) return false;
    this.seen = now;
    const { files, log } = this.options;
    let pair: TlsPair;
    try {
      pair = readTlsPair(files);
      this.options.apply(pair);
    } catch (err) {
      this.counted('failed');
      log?.warn(
        { certFile: files.certFile, keyFile: files.keyFile, err: errorMessage(err) },
        'The TLS certificate or key changed but cannot be used; the gateway keeps serving the certificate it has and tries again when the files change',
      );
      return false;
    }
    this.served = pair;
    this.counted('ok');
    log?.info(
      { certFile: files.certFile, expiresAt: new Date(pair.expiresAt).toISOString() },
      'Serving the renewed TLS certificate to new connections',
    );
    return true;
  }

  private fingerprints(): string {
    return `${fingerprint(this.options.files.certFile)}|${fingerprint(this.options.files.keyFile)}`;
  }
}
