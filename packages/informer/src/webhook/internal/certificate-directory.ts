// Reads tls.crt / tls.key (and ca.crt) from a directory and re-reads them when they change, the
// way cert-manager and kubelet rotate a mounted Secret: they swap a `..data` symlink inside the
// directory, so the directory is watched, not the files (a watch on a replaced file goes silent).
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { WebhookCertificates } from '../webhook-certificates.js';

/** Waits for a burst of file events (a rotation writes several files) to end before reading. */
const SETTLE_MS = 100;

export class CertificateDirectory {
  readonly #dir: string;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #current: WebhookCertificates | undefined;

  constructor(dir: string) {
    this.#dir = dir;
  }

  get current(): WebhookCertificates | undefined {
    return this.#current;
  }

  /** Reads the files; rejects naming the directory and the missing or unusable file. */
  async load(): Promise<WebhookCertificates> {
    const read = async (name: string, required: boolean): Promise<string> => {
      try {
        return await readFile(join(this.#dir, name), 'utf8');
      } catch (error) {
        if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return '';
        throw new Error(
          `webhook certificates: cannot read ${join(this.#dir, name)} (${(error as Error).message}); mount the Secret with tls.crt and tls.key there`,
          { cause: error },
        );
      }
    };
    const [cert, key, caCert] = await Promise.all([read('tls.crt', true), read('tls.key', true), read('ca.crt', false)]);
    try {
      // A cert and key that do not match, or half-written files, must not replace good ones.
      createSecureContext({ cert, key });
    } catch (error) {
      throw new Error(`webhook certificates: ${this.#dir}/tls.crt and tls.key are not a usable pair (${(error as Error).message})`, {
        cause: error,
      });
    }
    this.#current = { cert, key, caCert };
    return this.#current;
  }

  /** Calls `onChange` with the new certificates after each rotation, `onError` when a reload fails (the old ones stay). */
  watch(onChange: (certificates: WebhookCertificates) => void, onError: (error: unknown) => void): void {
    this.#watcher = watch(this.#dir, () => {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => {
        const before = this.#current;
        this.load().then(
          (now) => {
            if (now.cert !== before?.cert || now.key !== before?.key) onChange(now);
          },
          (error: unknown) => {
            if (before !== undefined) this.#current = before;
            onError(error);
          },
        );
      }, SETTLE_MS);
    });
    this.#watcher.on('error', onError);
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#watcher?.close();
    this.#watcher = undefined;
  }
}
