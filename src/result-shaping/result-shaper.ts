// The shape stage of the target sequence for tools/call, and the reading of what it kept:
// optional redaction with the audit trail's patterns (a deterministic guardrail, counted in
// the record), then the limits that hold for the tool (shaping-limits.ts) applied by
// shapeResult, whose full copies go to the result store under the caller's authorization
// context. Built once from the frozen config; the clock is passed in.
import { compileRedaction, redact, type Redaction, type RedactionSpec } from '../audit/redact.ts';
import type { Reply } from '../protocol/call.ts';
import type { JsonObject, JsonValue } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok } from '../protocol/result.ts';
import type { SchemaValidator } from '../validation/schema-validator.ts';
import { parseKeptResultUri } from './kept-result-uri.ts';
import { readKeptResult } from './read-kept-result.ts';
import { createResultStore, type ResultStore } from './result-store.ts';
import { contentBytes, shapeResult, type ShapingRecord } from './shape-result.ts';
import type { ResultShapingConfig } from './shaping-config.ts';
import { compileLimits } from './shaping-limits.ts';

export interface ShapeContext {
  /** Exposed tool name and its upstream: which limits hold. */
  tool: string;
  upstream: string;
  outputSchema: JsonObject | undefined;
  /** Authorization context of the caller: the only one who may read what is kept. */
  owner: string;
}

export interface ResultShaper {
  shape(reply: Reply, ctx: ShapeContext): { reply: Reply; record?: ShapingRecord };
  /** A resources/read of one of the caller's kept results; undefined when `uri` names none
   * (the read is then routed as any other). */
  read(uri: string, owner: string): Reply | undefined;
  store: ResultStore;
}

export interface ShaperDeps {
  config: ResultShapingConfig;
  redaction: RedactionSpec;
  validator: SchemaValidator;
  now?: () => number;
}

function redactBlocks(content: readonly JsonValue[], r: Redaction, count: () => void): JsonValue[] {
  return content.map((b) => {
    if (!isJsonObject(b)) return b;
    if (b.type === 'text' && typeof b.text === 'string') {
      const text = redact(b.text, r) as string;
      if (text === b.text) return b;
      count();
      return { ...b, text };
    }
    if (b.type === 'resource' && isJsonObject(b.resource) && typeof b.resource.text === 'string') {
      const text = redact(b.resource.text, r) as string;
      if (text === b.resource.text) return b;
      count();
      return { ...b, resource: { ...b.resource, text } };
    }
    return b;
  });
}

export function createResultShaper(deps: ShaperDeps): ResultShaper {
  const { config, validator } = deps;
  const limitsFor = compileLimits(config);
  const store = createResultStore(config.keep, deps.now);
  const compiled = compileRedaction(deps.redaction);
  // normalizeAuditConfig compiled the same spec at boot, so failing here is a bug.
  if (!compiled.ok) throw new Error('createResultShaper: unchecked redaction config');
  const redaction = config.redact ? compiled.value : undefined;

  /** The redacted result and how many strings changed; a structured result that no longer
   * matches its outputSchema is withheld rather than sent half-redacted or unredacted. */
  const redacted = (result: JsonObject, ctx: ShapeContext): { result: JsonObject; changed: number; withheld?: true } => {
    if (!redaction) return { result, changed: 0 };
    let changed = 0;
    const count = (): void => void changed++;
    let out: JsonObject = Array.isArray(result.content) ? { ...result, content: redactBlocks(result.content, redaction, count) } : result;
    if ('structuredContent' in result && result.structuredContent !== undefined) {
      const before = JSON.stringify(result.structuredContent);
      const after = redact(result.structuredContent, redaction);
      if (JSON.stringify(after) !== before) {
        changed++;
        out = { ...out, structuredContent: after };
        if (ctx.outputSchema && validator.validate(ctx.outputSchema, after).kind === 'invalid') {
          const text = `Gatehouse withheld the result of ${ctx.tool}: it contained secrets, and with them redacted its structured content no longer matches the tool's outputSchema.`;
          return { result: { content: [{ type: 'text', text }], isError: true }, changed, withheld: true };
        }
      }
    }
    return { result: changed ? out : result, changed };
  };

  return {
    store,
    shape(reply, ctx) {
      if (!reply.ok || reply.value.resultType === 'input_required') return { reply };
      const clean = redacted(reply.value, ctx);
      if (clean.withheld) return { reply: ok(clean.result), record: { bytes: contentBytes(reply.value), sentBytes: 0, refused: true, redacted: clean.changed } };
      const shaped = shapeResult({
        result: clean.result,
        limits: limitsFor(ctx.tool, ctx.upstream),
        hasOutputSchema: ctx.outputSchema !== undefined,
        keep: (part) => store.put(ctx.owner, part),
        notice: { tool: ctx.tool, ttlMs: config.keep.ttlMs, pageBytes: config.keep.pageBytes, maxEntryBytes: config.keep.maxEntryBytes },
      });
      if (!shaped.record && clean.changed === 0) return { reply };
      const record: ShapingRecord = shaped.record ?? { bytes: shaped.bytes, sentBytes: shaped.bytes };
      return { reply: ok(shaped.result), record: clean.changed ? { ...record, redacted: clean.changed } : record };
    },
    read(uri, owner) {
      const addr = parseKeptResultUri(uri);
      if (addr === undefined) return undefined;
      if (typeof addr === 'string') return err({ kind: 'invalid_params', message: `Invalid kept-result uri: ${addr}`, data: { uri } });
      if (!store.get(owner, addr.id)) return undefined;
      return readKeptResult(store, owner, uri, addr, config.keep.pageBytes);
    },
  };
}
