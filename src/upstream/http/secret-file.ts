// A secret kept in a file (a mounted Kubernetes or Docker secret, a file a sidecar rotates):
// read when the upstream starts, and read again when the file changes, so that rotating it
// needs no restart. The file is looked at on use, at most once per interval (a stat; the
// content only when inode, size or times changed), rather than with fs.watch: Kubernetes
// rotates by swapping a symlink, which a watch on the old path never sees. A failed or
// unusable read keeps the last good value and logs one warning per failure streak. The
// value itself never reaches a log line. What makes a usable value is config/secret-text.ts.

import { readFileSync, statSync, type Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { describeReadError, secretFromText } from '../../config/secret-text.ts';
import type { Logger } from '../../telemetry/logger.ts';

const CHECK_INTERVAL_MS = 1000;

export interface SecretFileOptions {
  file: string;
  /** Already bound to the upstream; the file and `what` are added here. */
  logger: Logger;
  /** What the secret is for, in log lines: 'header "Authorization"', 'auth.clientSecretFile'. */
  what: string;
  now?: () => number;
  checkIntervalMs?: number;
}

export class SecretFile {
  readonly file: string;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly interval: number;
  private value: string | undefined;
  /** Of the file the value was read from; '' when it never was. */
  private signature = '';
  private checkedAt: number;
  private checking: Promise<void> | undefined;
  private failing = false;

  constructor(opts: SecretFileOptions) {
    this.file = opts.file;
    this.logger = opts.logger.child({ file: opts.file, secret: opts.what });
    this.now = opts.now ?? Date.now;
    this.interval = opts.checkIntervalMs ?? CHECK_INTERVAL_MS;
    this.checkedAt = this.now();
    // Synchronous once, at start: the config loader has just read the same file, so this
    // fails only if it vanished since; then `current()` keeps trying.
    try {
      const st = statSync(this.file);
      this.accept(readFileSync(this.file, 'utf8'), signatureOf(st));
    } catch (e) {
      this.warn(describeReadError(e));
    }
  }

  /** The value, looking at the file first when the last look is older than the interval.
   * Undefined only while the file has never been read successfully. */
  async current(): Promise<string | undefined> {
    if (this.now() - this.checkedAt >= this.interval) await this.check();
    return this.value;
  }

  /** Looks at the file now, because the upstream refused the value; true when it changed. */
  async recheck(): Promise<boolean> {
    const before = this.value;
    // A look already under way may have started before the file was replaced.
    await this.checking;
    await this.check();
    return this.value !== before;
  }

  private check(): Promise<void> {
    this.checking ??= this.look().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async look(): Promise<void> {
    this.checkedAt = this.now();
    try {
      const st = await stat(this.file);
      const signature = signatureOf(st);
      if (signature === this.signature) return;
      this.accept(await readFile(this.file, 'utf8'), signature);
    } catch (e) {
      this.warn(describeReadError(e));
    }
  }

  private accept(text: string, signature: string): void {
    const secret = secretFromText(text);
    if (!secret.ok) {
      // The signature stays old, so the next look reads again: a writer that truncates
      // first and writes after is caught half-way here and complete next time.
      this.warn(secret.error);
      return;
    }
    const first = this.signature === '';
    const changed = secret.value !== this.value;
    this.signature = signature;
    this.value = secret.value;
    if (this.failing) this.logger.info('secret file readable again');
    else if (changed && !first) this.logger.info('secret file changed; using the new value');
    this.failing = false;
  }

  private warn(reason: string): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn(
      this.value === undefined ? 'cannot read secret file' : 'cannot read secret file; keeping the last good value',
      { reason },
    );
  }
}

function signatureOf(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}
