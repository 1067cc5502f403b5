// `gatehouse user-tokens list|revoke --config FILE`: what an operator sees and removes of the
// users' tokens for per-user upstreams (`auth: { type: user }`), read from the shared Redis
// store the config names. Never a token: the listing holds who, which upstream, until when,
// which scopes, and whether it can be refreshed. A removed record takes effect at the
// gateway's next request for that user (it reads the store on every request), which then
// asks the user to consent again. The in-memory store lives inside the running gateway only,
// so these commands need the Redis one.
import { parseArgs } from 'node:util';
import { ConfigError, formatIssue } from '../config/config-error.ts';
import { loadConfig } from '../config/load-config.ts';
import { openTokenStore } from '../app/user-auth-wiring.ts';

export const USER_TOKENS_USAGE = `usage: gatehouse user-tokens list --config FILE [--upstream NAME] [--principal ID] [--json]
       gatehouse user-tokens revoke --config FILE --upstream NAME --principal ID`;

export interface UserTokensIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
}

const processIo = (): UserTokensIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });

export async function userTokensCommand(argv: string[], io: UserTokensIo = processIo()): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'list' && sub !== 'revoke') {
    io.stderr.write(`gatehouse user-tokens: ${sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`}\n${USER_TOKENS_USAGE}\n`);
    return 2;
  }
  let values: { config?: string; upstream?: string; principal?: string; json?: boolean };
  try {
    values = parseArgs({
      args: rest,
      options: { config: { type: 'string', short: 'c' }, upstream: { type: 'string' }, principal: { type: 'string' }, json: { type: 'boolean' } },
      strict: true,
    }).values;
  } catch (e) {
    io.stderr.write(`gatehouse user-tokens ${sub}: ${(e as Error).message}\n${USER_TOKENS_USAGE}\n`);
    return 2;
  }
  if (values.config === undefined) return usage(io, sub, '--config is required');
  if (sub === 'revoke' && (values.upstream === undefined || values.principal === undefined)) return usage(io, sub, '--upstream and --principal are required');
  let config;
  try {
    config = loadConfig(values.config, io.env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    for (const i of e.issues) io.stderr.write(`${formatIssue(i)}\n`);
    return 2;
  }
  if (config.userAuth === undefined) return usage(io, sub, 'the config has no `userAuth` section: no upstream is reached as each user');
  if (config.userAuth.store.kind !== 'redis') {
    return usage(io, sub, 'userAuth.store is memory: those tokens live inside the running gateway only (users remove theirs with DELETE /oauth/connections/UPSTREAM); use the Redis store to manage them here');
  }
  const store = openTokenStore(config.userAuth.store);
  try {
    if (sub === 'revoke') {
      const removed = await store.delete(values.principal as string, values.upstream as string);
      io.stdout.write(removed ? `removed the tokens of ${values.principal} for ${values.upstream}\n` : `no tokens of ${values.principal} for ${values.upstream}\n`);
      return removed ? 0 : 1;
    }
    const all = (await store.list())
      .filter((l) => (values.upstream === undefined || l.upstream === values.upstream) && (values.principal === undefined || l.principal === values.principal))
      .sort((a, b) => a.upstream.localeCompare(b.upstream) || a.principal.localeCompare(b.principal));
    if (values.json) {
      for (const l of all) io.stdout.write(`${JSON.stringify({ ...l, expiresAt: new Date(l.expiresAt).toISOString(), obtainedAt: new Date(l.obtainedAt).toISOString() })}\n`);
    } else {
      for (const l of all) {
        io.stdout.write(`${l.upstream}\t${l.principal}\texpires ${new Date(l.expiresAt).toISOString()}\t${l.refreshable ? 'refreshable' : 'not refreshable'}\t${l.scope ?? '-'}\n`);
      }
      io.stderr.write(`${all.length} connection${all.length === 1 ? '' : 's'}\n`);
    }
    return 0;
  } catch (e) {
    io.stderr.write(`gatehouse user-tokens ${sub}: the token store cannot be reached: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await store.close();
  }
}

function usage(io: UserTokensIo, sub: string, why: string): number {
  io.stderr.write(`gatehouse user-tokens ${sub}: ${why}\n${USER_TOKENS_USAGE}\n`);
  return 2;
}
