// The protocol revisions Gatehouse speaks, on both sides. "modern" is 2026-07-28 (no
// handshake, metadata on every request); "legacy" is 2025-11-25 and the earlier revisions that
// start with `initialize` (MCP 2026-07-28, basic/versioning).
export type Era = 'modern' | 'legacy';

export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSION = '2025-11-25';

export const SUPPORTED_MODERN_VERSIONS: readonly string[] = [MODERN_VERSION];
/** initialize negotiates down to any of these (MCP 2025-11-25, basic/lifecycle). */
export const SUPPORTED_LEGACY_VERSIONS: readonly string[] = [LEGACY_VERSION, '2025-06-18', '2025-03-26'];
/** What `server/discover` and unsupported-version errors list. */
export const ALL_SUPPORTED_VERSIONS: readonly string[] = [...SUPPORTED_MODERN_VERSIONS, LEGACY_VERSION];
