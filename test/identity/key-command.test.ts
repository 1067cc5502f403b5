import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { keyCommand, keyHashCommand } from '../../src/cli/key-command.ts';
import { hashKey } from '../../src/identity/hash-key.ts';

function io(stdinText: string) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdin: Readable.from([Buffer.from(stdinText)]), stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } },
    out,
    err,
  };
}

describe('gatehouse key hash', () => {
  const KEY = 'k7Qm2v9XcR4tY8wZpL3nB6sD1fG5hJ0a';

  it('prints the hex SHA-256 of the key on stdin, without its trailing newline, and never the key', async () => {
    const t = io(`${KEY}\n`);
    expect(await keyHashCommand([], t.io)).toBe(0);
    expect(t.out).toEqual([`${hashKey(KEY)}\n`]);
    expect(t.err).toEqual([]);
  });

  it('prints sha256:<hex> with --prefixed, through `key hash`', async () => {
    const t = io(`${KEY}\r\n`);
    expect(await keyCommand(['hash', '--prefixed'], t.io)).toBe(0);
    expect(t.out).toEqual([`sha256:${hashKey(KEY)}\n`]);
  });

  it('refuses empty input, two lines, and spaces with exit code 2', async () => {
    for (const input of ['', '\n', 'one\ntwo\n', 'has space\n']) {
      const t = io(input);
      expect(await keyHashCommand([], t.io)).toBe(2);
      expect(t.out).toEqual([]);
      expect(t.err.join('')).not.toContain('one\ntwo');
    }
  });

  it('warns about short keys and JWT-shaped keys but still hashes them', async () => {
    const t = io('short\n');
    expect(await keyHashCommand([], t.io)).toBe(0);
    expect(t.out).toEqual([`${hashKey('short')}\n`]);
    expect(t.err).toEqual(['gatehouse key hash: warning: a key this short may be guessed; use at least 32 random bytes (openssl rand -base64 32)\n']);
    const j = io('aaaaaaaaaa.bbbbbbbbbb.cccccccccc\n');
    expect(await keyHashCommand([], j.io)).toBe(0);
    expect(j.err.join('')).toContain('looks like a JWT');
  });

  it('refuses unknown options and subcommands with usage', async () => {
    const t = io(KEY);
    expect(await keyHashCommand(['--hex'], t.io)).toBe(2);
    expect(t.err.join('')).toContain('usage: gatehouse key hash [--prefixed]');
    const u = io(KEY);
    expect(await keyCommand(['new'], u.io)).toBe(2);
    expect(u.err.join('')).toBe('gatehouse key: unknown subcommand "new"\nusage: gatehouse key hash [--prefixed] < keyfile   (prints the hex SHA-256 of the key on stdin)\n');
  });
});
