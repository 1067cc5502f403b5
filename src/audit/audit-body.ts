// How the pipeline turns argument and result bodies into the `arguments` / `result` fields of
// a request record, per `audit.record` and the per-tool `audit.rules`. Compiled once from the
// frozen config; then pure (hashing aside, no I/O).
import type { JsonValue } from '../protocol/message.ts';
import { compileGlob, type Glob } from '../policy/glob.ts';
import type { AuditConfig } from './audit-config.ts';
import type { BodyMode } from './audit-config-schema.ts';
import { CANONICAL_MAX_DEPTH } from './canonical-json.ts';
import { digestJson } from './digest.ts';
import { nestsDeeperThan } from '../protocol/json-depth.ts';
import { compileRedaction, redact, type Redaction } from './redact.ts';

/** `unrecorded` says why a body that existed is not in the record (it could not be
 * canonicalized); the record itself is written all the same. */
export type AuditBody = { digest: string } | { redacted: JsonValue } | { full: JsonValue } | { unrecorded: string };

/** A body sits two levels below the record's root (`result.full`): deeper ones would stop the
 * record itself from being canonicalized (hash chain). Requests and answers deeper than
 * limits.maxJsonDepth never get this far; this keeps the record whole if one ever did. */
const MAX_RECORDED_DEPTH = CANONICAL_MAX_DEPTH - 4;
const TOO_DEEP: AuditBody = { unrecorded: `nested deeper than ${MAX_RECORDED_DEPTH} levels` };

export interface AuditBodies {
  /** The body mode for a tool (exposed name; undefined for methods without one). */
  modes(name: string | undefined): { arguments: BodyMode; results: BodyMode };
  /** The `arguments` field for this call, or undefined to leave it out. */
  arguments(name: string | undefined, value: JsonValue | undefined): AuditBody | undefined;
  /** The `result` field for this call, or undefined to leave it out. */
  result(name: string | undefined, value: JsonValue | undefined): AuditBody | undefined;
}

export function createAuditBodies(config: Pick<AuditConfig, 'record' | 'redact' | 'rules'>): AuditBodies {
  const compiled = compileRedaction(config.redact);
  // normalizeAuditConfig compiled the same spec, so failing here is a bug.
  if (!compiled.ok) throw new Error(`createAuditBodies: unchecked redaction config: ${compiled.error[0]?.message ?? ''}`);
  const redaction = compiled.value;
  const rules = config.rules.map((rule) => ({ ...rule, glob: compileGlob(rule.tool) as Glob }));
  const modes = (name: string | undefined): { arguments: BodyMode; results: BodyMode } => {
    const matching = name === undefined ? [] : rules.filter((r) => r.glob.matches(name));
    return {
      arguments: matching.find((r) => r.arguments !== undefined)?.arguments ?? config.record.arguments,
      results: matching.find((r) => r.results !== undefined)?.results ?? config.record.results,
    };
  };
  return {
    modes,
    arguments: (name, value) => recordBody(modes(name).arguments, value, redaction),
    result: (name, value) => recordBody(modes(name).results, value, redaction),
  };
}

export function recordBody(mode: BodyMode, value: JsonValue | undefined, redaction: Redaction): AuditBody | undefined {
  if (value === undefined) return undefined;
  switch (mode) {
    case 'none':
      return undefined;
    case 'digest':
      // canonicalJson refuses what it cannot walk (too deep) by throwing: the common case
      // costs no second walk.
      try {
        return { digest: digestJson(value) };
      } catch {
        return TOO_DEEP;
      }
    case 'redacted':
      return nestsDeeperThan(value, MAX_RECORDED_DEPTH) ? TOO_DEEP : { redacted: redact(value, redaction) };
    case 'full':
      return nestsDeeperThan(value, MAX_RECORDED_DEPTH) ? TOO_DEEP : { full: value };
  }
}
