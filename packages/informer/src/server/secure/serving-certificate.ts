import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { generateWebhookCertificates } from '../../webhook/webhook-certificates.js';

/**
 * Why a certificate or key file cannot be served: `unreadable` (missing, no permission),
 * `not-a-certificate`, `not-a-key` (not PEM), `key-mismatch` (the key of another certificate).
 *
 * @example
 * ```ts
 * import { ServingCertificateError, type ServingCertificateErrorReason } from '@kindex/informer';
 * declare const error: unknown;
 *
 * const reason: ServingCertificateErrorReason | undefined = error instanceof ServingCertificateError ? error.reason : undefined;
 * if (reason === 'unreadable') console.error('is the certificate Secret mounted?');
 * ```
 */
export type ServingCertificateErrorReason = 'unreadable' | 'not-a-certificate' | 'not-a-key' | 'key-mismatch';

/**
 * The operator server's certificate or key file cannot be served: unreadable, not PEM, or a key
 * that does not belong to the certificate. Thrown by `listen()` (so `Operator.start()`), naming the
 * file and the fix; when a rotated pair is bad, the server logs it and keeps serving the old one.
 *
 * @example
 * ```ts
 * import { ServingCertificateError, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * try {
 *   await operator.start();
 * } catch (error) {
 *   if (error instanceof ServingCertificateError && error.reason === 'key-mismatch') console.error(`replace ${error.file}`);
 *   throw error;
 * }
 * ```
 */
export class ServingCertificateError extends Error {
  override readonly name = 'ServingCertificateError';
  readonly code = 'KINDEX_SERVING_CERTIFICATE';
  constructor(
    /** What is wrong with the file. */
    readonly reason: ServingCertificateErrorReason,
    /** The file at fault. */
    readonly file: string,
    message: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
  }
}

/** A certificate and key, PEM, checked to belong together. */
export interface ServingPair {
  readonly cert: string;
  readonly key: string;
}

/**
 * Reads a PEM certificate and key and checks them: each parses, and the key is the certificate's.
 * Rejects with a {@link ServingCertificateError} naming the file and the fix.
 */
export async function loadServingPair(certFile: string, keyFile: string): Promise<ServingPair> {
  const read = async (file: string, option: string): Promise<string> => {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      throw new ServingCertificateError(
        'unreadable',
        file,
        `operator server: cannot read ${option} ${file} (${(error as Error).message}); mount the certificate Secret there, or leave certFile and keyFile out for a self-signed certificate`,
        { cause: error },
      );
    }
  };
  const [cert, key] = await Promise.all([read(certFile, 'server.secure.certFile'), read(keyFile, 'server.secure.keyFile')]);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (error) {
    throw new ServingCertificateError(
      'not-a-certificate',
      certFile,
      `operator server: server.secure.certFile ${certFile} is not a PEM certificate (${(error as Error).message}); give the tls.crt of a kubernetes.io/tls Secret`,
      { cause: error },
    );
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (error) {
    throw new ServingCertificateError(
      'not-a-key',
      keyFile,
      `operator server: server.secure.keyFile ${keyFile} is not a PEM private key (${(error as Error).message}); give the tls.key of a kubernetes.io/tls Secret`,
      { cause: error },
    );
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new ServingCertificateError(
      'key-mismatch',
      keyFile,
      `operator server: server.secure.keyFile ${keyFile} is not the key of the certificate in ${certFile}; give the tls.key issued with that tls.crt (the same Secret)`,
    );
  }
  return { cert, key };
}

/** A self-signed pair for `localhost`, `127.0.0.1`, `::1` and the pod's host name (webhook-certificates' generator). */
export async function selfSignedServingPair(hostName: string): Promise<ServingPair> {
  const { cert, key } = await generateWebhookCertificates({ hosts: ['localhost', '127.0.0.1', '::1', hostName] });
  return { cert, key };
}

/** Waits for a burst of file events (a rotation writes several files) to end before reading. */
const SETTLE_MS = 100;
/** Re-reads the files this often too: a watch can miss events (network file systems, some overlays). */
const POLL_MS = 10_000;

/**
 * Watches a certificate and key for changes, the way cert-manager and the kubelet rotate a mounted
 * Secret: they swap a `..data` symlink in the files' directory, so the directories are watched,
 * not the files (a watch on a replaced file goes silent), with a slow poll as a safety net.
 */
export class ServingPairWatcher {
  readonly #certFile: string;
  readonly #keyFile: string;
  readonly #watchers: FSWatcher[] = [];
  #current: ServingPair;
  #settle: NodeJS.Timeout | undefined;
  #poll: NodeJS.Timeout | undefined;
  #reading = false;

  constructor(certFile: string, keyFile: string, current: ServingPair) {
    this.#certFile = certFile;
    this.#keyFile = keyFile;
    this.#current = current;
  }

  /** Calls `onChange` with each new valid pair, `onError` when a changed pair cannot be served (the old one stays). */
  start(onChange: (pair: ServingPair) => void, onError: (error: unknown) => void): void {
    const changed = (): void => {
      clearTimeout(this.#settle);
      this.#settle = setTimeout(() => void this.#reload(onChange, onError), SETTLE_MS);
    };
    for (const dir of new Set([dirname(this.#certFile), dirname(this.#keyFile)])) {
      const watcher = watch(dir, changed);
      watcher.on('error', onError);
      this.#watchers.push(watcher);
    }
    this.#poll = setInterval(changed, POLL_MS);
    this.#poll.unref();
  }

  async #reload(onChange: (pair: ServingPair) => void, onError: (error: unknown) => void): Promise<void> {
    if (this.#reading) return;
    this.#reading = true;
    try {
      const next = await loadServingPair(this.#certFile, this.#keyFile);
      if (next.cert === this.#current.cert && next.key === this.#current.key) return;
      this.#current = next;
      onChange(next);
    } catch (error) {
      // A rotation writes the files one after the other: a half-written pair is retried by the
      // next event or poll, and the old pair is served meanwhile.
      onError(error);
    } finally {
      this.#reading = false;
    }
  }

  close(): void {
    clearTimeout(this.#settle);
    clearInterval(this.#poll);
    for (const w of this.#watchers.splice(0)) w.close();
  }
}
