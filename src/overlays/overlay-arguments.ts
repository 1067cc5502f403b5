// What a call to an overlaid tool or prompt becomes on its way upstream: the client's
// arguments checked against what the overlay hides, completed with fixed values and defaults,
// and (tools) the output note added to the result. Pure.
import { isJsonObject, type JsonObject } from '../protocol/message.ts';
import type { AppliedOverlay } from './apply-overlays.ts';

/** The first argument the client sent that the overlay keeps for the gateway, if any. */
export function refusedArgument(applied: AppliedOverlay, args: JsonObject | undefined): string | undefined {
  if (!args) return undefined;
  return applied.hidden.find((name) => Object.hasOwn(args, name));
}

/** The arguments the upstream receives: its defaults where the client said nothing, the
 * client's own, and the fixed values over everything. */
export function upstreamArguments(applied: AppliedOverlay, args: JsonObject | undefined): JsonObject | undefined {
  const hasDefaults = Object.keys(applied.defaults).length > 0;
  const hasFixed = Object.keys(applied.fixed).length > 0;
  if (!hasDefaults && !hasFixed) return args;
  return { ...applied.defaults, ...(args ?? {}), ...applied.fixed };
}

/** Which arguments the gateway filled in for the upstream, and how: the audit record marks
 * them, so that a reader tells the operator's values from the caller's. Undefined: none. */
export function filledArguments(applied: AppliedOverlay, args: JsonObject | undefined): Readonly<Record<string, 'fixed' | 'default'>> | undefined {
  let filled: Record<string, 'fixed' | 'default'> | undefined;
  for (const name of Object.keys(applied.defaults)) if (!args || !Object.hasOwn(args, name)) (filled ??= {})[name] = 'default';
  for (const name of Object.keys(applied.fixed)) (filled ??= {})[name] = 'fixed';
  return filled;
}

/** The context of a completion request for an overlaid prompt (MCP 2026-07-28,
 * server/utilities/completion: `context.arguments`, the arguments already resolved): the fixed
 * values are resolved, always, and a hidden argument has none the client could have given. */
export function completionContext(applied: AppliedOverlay, context: JsonObject | undefined): JsonObject | undefined {
  const given = context && isJsonObject(context.arguments) ? context.arguments : undefined;
  if (Object.keys(applied.fixed).length === 0 && !(given && applied.hidden.some((h) => Object.hasOwn(given, h)))) return context;
  const kept = Object.fromEntries(Object.entries(given ?? {}).filter(([k]) => !applied.hidden.includes(k)));
  return { ...(context ?? {}), arguments: { ...kept, ...applied.fixed } };
}

/** A validation message (`/limit must be <= 10`) as one that names the argument. */
export function namedArgumentProblem(message: string): string {
  const m = /^\/([^/\s]+)(\S*) (.*)$/s.exec(message);
  if (!m) return message;
  const name = m[1]!.replace(/~1/g, '/').replace(/~0/g, '~');
  return `argument "${name}"${m[2] ? ` (at ${m[2]})` : ''} ${m[3]}`;
}

/** The result with the overlay's note as its last text block; an input_required answer is
 * not a result yet and passes unchanged. */
export function withOutputNote(result: JsonObject, note: string | undefined): JsonObject {
  if (note === undefined || result.resultType === 'input_required' || !Array.isArray(result.content)) return result;
  return { ...result, content: [...result.content, { type: 'text', text: note }] };
}
