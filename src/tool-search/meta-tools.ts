// The three gateway tools that stand in for the catalog in tool search mode, as tools/list
// items (MCP 2026-07-28, server/tools: Tool), and the checks of their arguments. Only the
// search tool's description changes with the catalog (catalog-summary.ts).
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { CALL_TOOL_NAME, DESCRIBE_TOOL_NAME, SEARCH_TOOL_NAME } from './catalog-summary.ts';
import { MAX_DESCRIBE_NAMES, MAX_SEARCH_LIMIT } from './tool-search-config.ts';

export const META_TOOL_NAMES: ReadonlySet<string> = new Set([SEARCH_TOOL_NAME, DESCRIBE_TOOL_NAME, CALL_TOOL_NAME]);
const MAX_QUERY_LENGTH = 500;

const SUMMARY: JsonObject = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    upstream: { type: 'string' },
  },
  required: ['name', 'description', 'upstream'],
};

const DESCRIBE_TOOL: JsonObject = Object.freeze({
  name: DESCRIBE_TOOL_NAME,
  title: 'Describe tools',
  description: `Returns the full definitions (description, input schema, output schema, annotations) of up to ${MAX_DESCRIBE_NAMES} tools named by ${SEARCH_TOOL_NAME}. Names you may not use are reported as unknown.`,
  inputSchema: {
    type: 'object',
    properties: { names: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: MAX_DESCRIBE_NAMES, description: 'Exposed tool names, e.g. "github__create_issue".' } },
    required: ['names'],
  },
  outputSchema: {
    type: 'object',
    properties: { tools: { type: 'array', items: { type: 'object' } }, unknown: { type: 'array', items: { type: 'string' } } },
    required: ['tools', 'unknown'],
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
}) as JsonObject;

const CALL_TOOL: JsonObject = Object.freeze({
  name: CALL_TOOL_NAME,
  title: 'Call a tool',
  description: `Runs one tool found with ${SEARCH_TOOL_NAME}, by its exact name, with arguments that match the input schema ${DESCRIBE_TOOL_NAME} returned. The answer is that tool's own result. Policy, approvals and limits apply exactly as if the tool were called directly.`,
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'The exact tool name, e.g. "github__create_issue".' },
      arguments: { type: 'object', description: "The tool's arguments, as its input schema describes them." },
    },
    required: ['name'],
  },
}) as JsonObject;

/** The three tools, with the search tool described from the caller's catalog. */
export function metaTools(searchDescription: string): JsonObject[] {
  const search: JsonObject = {
    name: SEARCH_TOOL_NAME,
    title: 'Search tools',
    description: searchDescription,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH, description: 'What you want to do, in a few words, or part of a tool name.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT, description: 'How many matches to return.' },
        upstream: { type: 'string', description: 'Only tools of this server.' },
      },
      required: ['query'],
    },
    outputSchema: {
      type: 'object',
      properties: { tools: { type: 'array', items: SUMMARY }, total: { type: 'integer', description: 'Tools you can use in all.' } },
      required: ['tools', 'total'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
  return [search, DESCRIBE_TOOL, CALL_TOOL];
}

const invalid = (message: string): Result<never, GatewayError> => err({ kind: 'invalid_params', message });
const argsOf = (params: JsonObject): JsonObject => (isJsonObject(params.arguments) ? params.arguments : {});

export function searchArguments(params: JsonObject, defaultLimit: number): Result<{ query: string; limit: number; upstream?: string }, GatewayError> {
  const a = argsOf(params);
  if (typeof a.query !== 'string' || a.query.trim() === '') return invalid(`${SEARCH_TOOL_NAME} needs a non-empty string "query"`);
  if (a.query.length > MAX_QUERY_LENGTH) return invalid(`${SEARCH_TOOL_NAME}: "query" is longer than ${MAX_QUERY_LENGTH} characters`);
  const limit = a.limit ?? defaultLimit;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) return invalid(`${SEARCH_TOOL_NAME}: "limit" must be an integer from 1 to ${MAX_SEARCH_LIMIT}`);
  if (a.upstream !== undefined && typeof a.upstream !== 'string') return invalid(`${SEARCH_TOOL_NAME}: "upstream" must be a string`);
  return ok({ query: a.query, limit, ...(typeof a.upstream === 'string' ? { upstream: a.upstream } : {}) });
}

export function describeArguments(params: JsonObject): Result<string[], GatewayError> {
  const names = argsOf(params).names;
  if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === 'string')) return invalid(`${DESCRIBE_TOOL_NAME} needs "names": a non-empty array of tool names`);
  if (names.length > MAX_DESCRIBE_NAMES) return invalid(`${DESCRIBE_TOOL_NAME}: at most ${MAX_DESCRIBE_NAMES} names at a time`);
  return ok([...new Set(names as string[])]);
}

export function callArguments(params: JsonObject): Result<{ name: string; arguments?: JsonObject }, GatewayError> {
  const a = argsOf(params);
  if (typeof a.name !== 'string' || a.name === '') return invalid(`${CALL_TOOL_NAME} needs the string "name" of the tool to run`);
  if (META_TOOL_NAMES.has(a.name)) return invalid(`${CALL_TOOL_NAME} runs catalog tools; call ${a.name} directly`);
  if (a.arguments !== undefined && !isJsonObject(a.arguments)) return invalid(`${CALL_TOOL_NAME}: "arguments" must be an object`);
  return ok({ name: a.name, ...(isJsonObject(a.arguments) ? { arguments: a.arguments } : {}) });
}
