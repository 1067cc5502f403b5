// The secret of a client configured for per-user authorization or token exchange, from the
// config (`clientSecret`) or from its file (`clientSecretFile`). A file is watched the way an
// upstream's client-credentials secret file is (upstream/http/secret-file.ts: looked at on use
// at most once a second, re-read when it changed, the last good value kept when a read fails),
// so rotating a mounted secret needs no restart. One watcher per file, for as long as the
// gateway runs (bounded by the files ever configured).
import { err, ok, type Result } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import { SecretFile } from '../upstream/http/secret-file.ts';
import type { OAuthClient } from './client-registration.ts';
import type { ConfiguredClient } from './user-auth-config.ts';

/** The client as token requests use it: its secret read now, `none` when it has none. */
export type ClientOf = (client: ConfiguredClient) => Promise<Result<OAuthClient, string>>;

export function clientSecrets(logger: Logger, now: () => number): ClientOf {
  const files = new Map<string, SecretFile>();
  return async (client) => {
    if (client.secretFile === undefined) return ok({ id: client.id, secret: client.secret, auth: client.secret === undefined ? 'none' : client.auth });
    let file = files.get(client.secretFile);
    if (file === undefined) {
      file = new SecretFile({ file: client.secretFile, logger, what: 'auth.clientSecretFile', now });
      files.set(client.secretFile, file);
    }
    const secret = await file.current();
    if (secret === undefined) return err(`the client secret file ${client.secretFile} has never been readable`);
    return ok({ id: client.id, secret, auth: client.auth });
  };
}
