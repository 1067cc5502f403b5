import { mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../telemetry/logger.ts';
import { SecretFile } from './secret-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-secret-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function setup(content: string) {
  const file = join(dir, `secret-${n++}`);
  writeFileSync(file, content);
  const clock = { now: 0 };
  const { logger, lines } = createMemoryLogger();
  const secret = new SecretFile({ file, logger, what: 'header "Authorization"', now: () => clock.now });
  return { file, clock, lines, secret };
}

describe('SecretFile', () => {
  it('reads the file at start, trimming the trailing newline', async () => {
    const { secret } = setup('tok-1\n');
    expect(await secret.current()).toBe('tok-1');
  });

  it('picks up a rotated file on the first use a second after the last look', async () => {
    const { file, clock, secret, lines } = setup('tok-1\n');
    writeFileSync(file, 'tok-2-longer\n');
    clock.now = 999;
    expect(await secret.current()).toBe('tok-1');
    clock.now = 1000;
    expect(await secret.current()).toBe('tok-2-longer');
    expect(lines.map((l) => l.msg)).toEqual(['secret file changed; using the new value']);
    expect(JSON.stringify(lines)).not.toContain('tok-2');
  });

  it('follows a symlink swap, as Kubernetes rotates mounted secrets', async () => {
    const a = join(dir, 'data-a');
    const b = join(dir, 'data-b');
    writeFileSync(a, 'from-a\n');
    writeFileSync(b, 'from-b\n');
    const link = join(dir, 'link');
    symlinkSync(a, link);
    const clock = { now: 0 };
    const secret = new SecretFile({ file: link, logger: createMemoryLogger().logger, what: 'x', now: () => clock.now });
    expect(await secret.current()).toBe('from-a');
    symlinkSync(b, `${link}.new`);
    renameSync(`${link}.new`, link);
    clock.now = 1000;
    expect(await secret.current()).toBe('from-b');
  });

  it('keeps the last good value when the file disappears or turns empty, warning once', async () => {
    const { file, clock, secret, lines } = setup('tok-1');
    unlinkSync(file);
    clock.now = 1000;
    expect(await secret.current()).toBe('tok-1');
    clock.now = 2000;
    expect(await secret.current()).toBe('tok-1');
    writeFileSync(file, '\n');
    clock.now = 3000;
    expect(await secret.current()).toBe('tok-1');
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'cannot read secret file; keeping the last good value', reason: 'no such file', file });
    writeFileSync(file, 'tok-3\n');
    clock.now = 4000;
    expect(await secret.current()).toBe('tok-3');
    expect(lines.at(-1)?.msg).toBe('secret file readable again');
  });

  it('looks again at once on recheck, and says whether the value changed', async () => {
    const { file, secret } = setup('tok-1');
    expect(await secret.recheck()).toBe(false);
    writeFileSync(file, 'tok-2-x');
    expect(await secret.recheck()).toBe(true);
    expect(await secret.current()).toBe('tok-2-x');
  });

  it('is undefined while the file has never been readable', async () => {
    const file = join(dir, 'missing');
    const clock = { now: 0 };
    const secret = new SecretFile({ file, logger: createMemoryLogger().logger, what: 'x', now: () => clock.now });
    expect(await secret.current()).toBeUndefined();
    writeFileSync(file, 'late\n');
    clock.now = 1000;
    expect(await secret.current()).toBe('late');
  });
});
