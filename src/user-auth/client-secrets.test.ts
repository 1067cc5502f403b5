import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../telemetry/logger.ts';
import { clientSecrets } from './client-secrets.ts';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-client-secret-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('clientSecrets', () => {
  it('gives a configured secret as it is, and a public client without one', async () => {
    const of = clientSecrets(createMemoryLogger().logger, Date.now);
    expect(await of({ id: 'c', secret: 's3cret', secretFile: undefined, auth: 'client_secret_post' })).toEqual({ ok: true, value: { id: 'c', secret: 's3cret', auth: 'client_secret_post' } });
    expect(await of({ id: 'c', secret: undefined, secretFile: undefined, auth: 'client_secret_basic' })).toEqual({ ok: true, value: { id: 'c', secret: undefined, auth: 'none' } });
  });

  it('reads a secret file, trimmed, and the new value once the file is replaced, never logging it', async () => {
    let t = 1_000_000;
    const { logger, lines } = createMemoryLogger();
    const of = clientSecrets(logger, () => t);
    const file = join(dir, 'secret');
    writeFileSync(file, 'first-secret\n');
    const client = { id: 'c', secret: undefined, secretFile: file, auth: 'client_secret_basic' as const };
    expect(await of(client)).toEqual({ ok: true, value: { id: 'c', secret: 'first-secret', auth: 'client_secret_basic' } });
    writeFileSync(`${file}.new`, 'second-secret-longer\n');
    renameSync(`${file}.new`, file);
    // Looked at again only after its interval (1 s): moved on by the injected clock.
    t += 1_500;
    expect(await of(client)).toEqual({ ok: true, value: { id: 'c', secret: 'second-secret-longer', auth: 'client_secret_basic' } });
    expect(JSON.stringify(lines)).not.toContain('secret-longer');
  });

  it('names the file when it was never readable', async () => {
    const of = clientSecrets(createMemoryLogger().logger, Date.now);
    const r = await of({ id: 'c', secret: undefined, secretFile: join(dir, 'missing'), auth: 'client_secret_basic' });
    expect(r).toEqual({ ok: false, error: `the client secret file ${join(dir, 'missing')} has never been readable` });
  });
});
