// `gatehouse key hash [--prefixed]`: reads one API key from stdin and prints the SHA-256 to
// put in `identity.apiKeys[].sha256`. The key is read from stdin, not argv, so it stays out
// of shell history and `ps`; it is never printed back.
import { parseArgs } from 'node:util';
import { looksLikeJwt } from '../identity/bearer-credentials.ts';
import { hashKey, KEY_HASH_PREFIX } from '../identity/hash-key.ts';

export const KEY_USAGE = 'usage: gatehouse key hash [--prefixed] < keyfile   (prints the hex SHA-256 of the key on stdin)';

export interface KeyCommandIo {
  stdin: AsyncIterable<string | Buffer> & { isTTY?: boolean };
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

// 128 bits of base64 is 22 characters; shorter keys may be guessable (hash-key.ts relies on
// keys being random).
const MIN_KEY_LENGTH = 22;
// The same character rule the gateway applies to a presented key (identity/bearer-credentials.ts).
const VISIBLE_ASCII = /^[\x21-\x7E]+$/;

/** `gatehouse key <subcommand>`; only `hash` exists. */
export async function keyCommand(argv: string[], io: KeyCommandIo = processIo()): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'hash') return keyHashCommand(rest, io);
  io.stderr.write(`gatehouse key: ${sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`}\n${KEY_USAGE}\n`);
  return 2;
}

/** `gatehouse key hash`, given the arguments after `hash`. Exit code 0, or 2 on misuse. */
export async function keyHashCommand(argv: string[], io: KeyCommandIo = processIo()): Promise<number> {
  let prefixed: boolean;
  try {
    const { values } = parseArgs({ args: argv, options: { prefixed: { type: 'boolean' } }, strict: true });
    prefixed = values.prefixed === true;
  } catch (e) {
    io.stderr.write(`gatehouse key hash: ${(e as Error).message}\n${KEY_USAGE}\n`);
    return 2;
  }
  if (io.stdin.isTTY === true) io.stderr.write('Type or paste the key, then press Ctrl-D.\n');
  let text = '';
  for await (const chunk of io.stdin) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  // One trailing line break is what `echo` and editors add; it is not part of the key.
  const key = text.replace(/\r?\n$/, '');
  if (key === '') {
    io.stderr.write(`gatehouse key hash: no key on stdin\n${KEY_USAGE}\n`);
    return 2;
  }
  if (!VISIBLE_ASCII.test(key)) {
    io.stderr.write('gatehouse key hash: expected one key of visible ASCII characters (no spaces or line breaks): it travels in an HTTP header\n');
    return 2;
  }
  if (key.length < MIN_KEY_LENGTH) {
    io.stderr.write(`gatehouse key hash: warning: a key this short may be guessed; use at least 32 random bytes (openssl rand -base64 32)\n`);
  }
  if (looksLikeJwt(key)) {
    io.stderr.write('gatehouse key hash: warning: this key looks like a JWT, so as `Authorization: Bearer` it is verified as a token when `identity.jwt` is set; send it as X-API-Key or pick another key\n');
  }
  const hex = hashKey(key);
  io.stdout.write(`${prefixed ? KEY_HASH_PREFIX : ''}${hex}\n`);
  return 0;
}

function processIo(): KeyCommandIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}
