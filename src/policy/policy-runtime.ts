// The live policy: loaded at boot (a bad policy stops the boot, like a bad config), then
// reloaded when its files change or on SIGHUP. A new policy is validated completely and
// swapped atomically; an invalid one is rejected with a logged error and the old one keeps
// running. Listeners learn of every swap (to tell clients whose lists changed).
import { watch, type FSWatcher } from 'node:fs';
import { formatIssue } from '../config/config-error.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { CompiledPolicy } from './compile-policy.ts';
import { loadPolicyDir, readPolicySources, tryParsePolicyFiles } from './load-policy.ts';

export interface PolicyRuntime {
  current(): CompiledPolicy;
  /** Reloads now; resolves to whether the new policy was taken. */
  reload(reason: string): boolean;
  onSwap(listener: (previous: CompiledPolicy, next: CompiledPolicy) => void): void;
  onReject(listener: (issues: string[]) => void): void;
  close(): void;
}

const DEBOUNCE_MS = 150;

/** `signal` false: SIGHUP is someone else's to handle (the config reload calls reload() itself). */
export function startPolicyRuntime(opts: { dir: string; defaultEffect: 'allow' | 'deny'; watch: boolean; logger: Logger; signal?: boolean }): PolicyRuntime {
  const { dir, defaultEffect, logger } = opts;
  let policy = loadPolicyDir(dir, { defaultEffect });
  const swapListeners: ((a: CompiledPolicy, b: CompiledPolicy) => void)[] = [];
  const rejectListeners: ((issues: string[]) => void)[] = [];
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;

  const reload = (reason: string): boolean => {
    let sources;
    try {
      sources = readPolicySources(dir);
    } catch (e) {
      logger.error('policy reload failed; keeping the running policy', { dir, reason, error: (e as Error).message });
      for (const l of rejectListeners) l([(e as Error).message]);
      return false;
    }
    const next = tryParsePolicyFiles(sources, { defaultEffect });
    if (!next.ok) {
      const issues = next.error.map(formatIssue);
      logger.error('policy reload rejected; keeping the running policy', { dir, reason, issues });
      for (const l of rejectListeners) l(issues);
      return false;
    }
    if (next.value.version === policy.version) {
      logger.debug('policy reload: nothing changed', { dir, reason });
      return true;
    }
    const previous = policy;
    policy = next.value;
    logger.info('policy reloaded', { dir, reason, rules: policy.rules.length, version: policy.version });
    for (const l of swapListeners) l(previous, policy);
    return true;
  };

  const onHup = (): void => void reload('SIGHUP');
  if (opts.signal !== false) process.on('SIGHUP', onHup);
  if (opts.watch) {
    try {
      watcher = watch(dir, () => {
        clearTimeout(timer);
        timer = setTimeout(() => reload('files changed'), DEBOUNCE_MS);
      });
      watcher.on('error', (e) => logger.warn('policy watch failed; SIGHUP still reloads', { dir, error: e.message }));
    } catch (e) {
      logger.warn('cannot watch the policy directory; SIGHUP still reloads', { dir, error: (e as Error).message });
    }
  }
  logger.info('policy loaded', { dir, rules: policy.rules.length, version: policy.version, watching: watcher !== undefined });

  return {
    current: () => policy,
    reload,
    onSwap: (l) => void swapListeners.push(l),
    onReject: (l) => void rejectListeners.push(l),
    close() {
      clearTimeout(timer);
      watcher?.close();
      process.off('SIGHUP', onHup);
    },
  };
}
