// One user's credentials for one upstream, in the shape every HTTP upstream asks for
// (upstream/http/upstream-credentials.ts): `Authorization: Bearer` with the user's current
// token, beside the upstream's header files, if it has any. A 401 asks the token source for a
// renewed token (user-tokens.ts); the client's own credentials are never among these.
import type { HttpUpstreamConfig } from '../config/types.ts';
import { err, ok } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import { createUpstreamCredentials, type UpstreamCredentials } from '../upstream/http/upstream-credentials.ts';
import type { UserAccess } from './user-access.ts';

const BEARER = 'Bearer ';

export function userCredentials(config: HttpUpstreamConfig, tokens: UserAccess, authContext: string, logger: Logger): UpstreamCredentials {
  const files = createUpstreamCredentials(config, logger);
  return {
    async headers() {
      const base = files === undefined ? ok({}) : await files.headers();
      if (!base.ok) return base;
      const t = await tokens.current(authContext, config.name);
      if (!t.ok) return t;
      if (t.value.kind === 'none') return err({ kind: 'upstream_unavailable', upstream: config.name, reason: 'your connection to this upstream was removed: connect again' });
      return ok({ ...base.value, authorization: BEARER + t.value.accessToken });
    },
    async rejected(sent) {
      const filesChanged = files === undefined ? false : await files.rejected(sent);
      const auth = sent.authorization;
      const tokenChanged = auth?.startsWith(BEARER) === true && (await tokens.rejected(authContext, config.name, auth.slice(BEARER.length)));
      return filesChanged || tokenChanged;
    },
    async close() {
      await files?.close();
    },
  };
}
