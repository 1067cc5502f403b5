// When and how the whole config is read again: on SIGHUP, and when the config file's content
// changes. The directory is watched, not the file: editors replace a file by renaming a new
// one over it, and a Kubernetes ConfigMap volume updates by swapping its `..data` symlink, so
// the inode a file watch holds is never written; a change is whatever makes the file read
// differently. Reloads run one at a time (a trigger during one runs one more after it). A
// config that does not load keeps the running one: one JSON log line names the file, the path
// in it and the reason; every outcome is counted and audited (by `record`). Applying a config
// that loads is config-swap.ts's.
import { createHash } from 'node:crypto';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import { formatIssue, type ConfigIssue } from '../config/config-error.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { JsonObject } from '../protocol/message.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { ConfigReloadResult } from '../telemetry/metrics.ts';

export type ReloadTrigger = 'SIGHUP' | 'file changed';

/** What applying a loaded config came to (config-swap.ts). */
export interface ApplyOutcome {
  result: ConfigReloadResult;
  /** For the log line and the audit record. */
  detail: JsonObject;
  /** Set when refused or failed: the first field or part to blame, and why. */
  path?: string;
  reason?: string;
}

export interface ConfigReloaderOptions {
  file: string;
  /** Reads and validates the file, as at boot (same environment and command-line overrides). */
  load(): { config: GatewayConfig | undefined; issues: readonly ConfigIssue[] };
  apply(next: GatewayConfig, trigger: ReloadTrigger): Promise<ApplyOutcome>;
  /** Counts and audits every outcome. */
  record(result: ConfigReloadResult, detail: JsonObject): void;
  logger: Logger;
  /** Whether to watch the file's directory (SIGHUP always reloads). */
  watch: boolean;
}

export interface ConfigReloader {
  /** Reloads now (after any reload under way); resolves to how it ended. */
  reload(trigger: ReloadTrigger): Promise<ConfigReloadResult>;
  /** No more reloads (a drain has begun); SIGHUP is still caught, and only logged, until close(). */
  stop(): void;
  close(): void;
}

/** Bursts of events (a rename, then a chmod; a ConfigMap's several links) make one reload. */
const DEBOUNCE_MS = 150;
/** The link a Kubernetes ConfigMap (or Secret) volume swaps to publish a new version. */
const CONFIGMAP_DATA_LINK = '..data';

export function startConfigReloader(opts: ConfigReloaderOptions): ConfigReloader {
  const { file, logger } = opts;
  let lastDigest = digestOf(file);
  let running: Promise<ConfigReloadResult> | undefined;
  let again: { trigger: ReloadTrigger; done: Promise<ConfigReloadResult> } | undefined;

  const once = async (trigger: ReloadTrigger): Promise<ConfigReloadResult> => {
    lastDigest = digestOf(file);
    const { config, issues } = opts.load();
    if (config === undefined) {
      const first = issues[0];
      const detail = { file, trigger, path: first?.path ?? '', reason: first?.message ?? 'invalid config', issues: issues.map(formatIssue) };
      logger.error('config reload rejected; keeping the running config', { ...detail, ...(first?.line !== undefined ? { line: first.line } : {}) });
      opts.record('invalid', { result: 'invalid', ...detail });
      return 'invalid';
    }
    let outcome: ApplyOutcome;
    try {
      outcome = await opts.apply(config, trigger);
    } catch (e) {
      outcome = { result: 'failed', detail: {}, path: '', reason: (e as Error).message };
    }
    const where: JsonObject = outcome.path === undefined ? {} : { path: outcome.path, reason: outcome.reason ?? '' };
    const detail: JsonObject = { file, trigger, ...where, ...outcome.detail };
    if (outcome.result === 'applied') logger.info('config reloaded', detail);
    else if (outcome.result === 'unchanged') logger.info('config reload: nothing changed', detail);
    else logger.error(`config reload ${outcome.result === 'invalid' ? 'rejected' : outcome.result}; keeping the running config`, detail);
    opts.record(outcome.result, { result: outcome.result, ...detail });
    return outcome.result;
  };

  const reload = (trigger: ReloadTrigger): Promise<ConfigReloadResult> => {
    if (running === undefined) {
      running = once(trigger).finally(() => {
        running = undefined;
      });
      return running;
    }
    // One more after the one under way, however many triggers come meanwhile.
    again ??= {
      trigger,
      done: running.then(() => {
        again = undefined;
        return reload(trigger);
      }),
    };
    return again.done;
  };

  // load() and record() report problems as values; a rejection here is a bug, logged.
  const bug = (e: unknown): void => logger.error('config reload failed unexpectedly', { file, error: (e as Error).message });
  let stopped = false;
  const onHup = (): void => {
    if (stopped) logger.info('config reload skipped: the gateway is shutting down', { file, trigger: 'SIGHUP' });
    else void reload('SIGHUP').catch(bug);
  };
  process.on('SIGHUP', onHup);
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  if (opts.watch) {
    // A ConfigMap update may change only the policy files beside the config: the ..data swap
    // reloads even when gatehouse.yaml reads the same (and every reload reloads the policy).
    let swapped = false;
    const changed = (): void => {
      // Otherwise the content decides: events also come for other files of the directory.
      if (!swapped && digestOf(file) === lastDigest) return;
      swapped = false;
      void reload('file changed').catch(bug);
    };
    try {
      watcher = watch(dirname(file), (_event, name) => {
        if (name === CONFIGMAP_DATA_LINK) swapped = true;
        clearTimeout(timer);
        timer = setTimeout(changed, DEBOUNCE_MS);
      });
      watcher.on('error', (e) => logger.warn('config watch failed; SIGHUP still reloads', { file, error: e.message }));
    } catch (e) {
      logger.warn('cannot watch the config directory; SIGHUP still reloads', { file, error: (e as Error).message });
    }
  }
  logger.info('config reloads on SIGHUP', { file, watching: watcher !== undefined, ...(watcher ? { directory: dirname(file) } : {}) });
  return {
    reload,
    stop() {
      stopped = true;
      clearTimeout(timer);
      watcher?.close();
    },
    close() {
      this.stop();
      process.off('SIGHUP', onHup);
    },
  };
}

/** The file's content digest, or a marker when it cannot be read (a reload then says why). */
function digestOf(file: string): string {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch (e) {
    return `unreadable: ${(e as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}
