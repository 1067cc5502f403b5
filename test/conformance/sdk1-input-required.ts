// The 2026-07-28 suite's input_required (SEP-2322) tools written the 2025-11-25 way, for the
// SDK 1.x fixture: each asks with a request on the call's stream (extra.sendRequest) where
// the SDK 2.x fixture (sdk2-input-required.ts) answers input_required with named inputs. So
// the modern-client, legacy-upstream row shows what the bridge does with them: the questions
// reach the 2026-07-28 client as input_required under the gateway's keys (a 2025-11-25
// request has no name of its own to keep), state is sealed by the gateway, a tampered one is
// refused. Not used by any 2025-11-25 scenario.
import { CreateMessageResultSchema, ElicitResultSchema, ListRootsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import * as content from './fixture-content.ts';

type Extra = { sendRequest: (r: never, schema: never) => Promise<unknown> };
type ToolResult = { content: { type: 'text'; text: string }[] };

const text = (value: string) => ({ type: 'text' as const, text: value });
const tool = (name: string) => ({ name, description: `input_required test tool ${name}, asking the 2025-11-25 way`, inputSchema: content.NO_INPUT });

export const INPUT_REQUIRED_LEGACY_TOOLS = [
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state',
  'test_input_required_result_capabilities',
].map(tool);

const elicit = (extra: Extra, message: string, property: string) =>
  extra.sendRequest({ method: 'elicitation/create', params: { message, requestedSchema: { type: 'object', properties: { [property]: { type: 'string' } }, required: [property] } } } as never, ElicitResultSchema as never) as Promise<{ content?: Record<string, unknown> }>;
const sample = (extra: Extra, prompt: string) =>
  extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 } } as never, CreateMessageResultSchema as never) as Promise<{ content?: { text?: string } }>;
const roots = (extra: Extra) => extra.sendRequest({ method: 'roots/list', params: {} } as never, ListRootsResultSchema as never) as Promise<{ roots?: { uri: string }[] }>;

/** Each question in turn; one the client cannot answer (its gateway said -32601) is left out. */
async function answered(asks: Record<string, () => Promise<unknown>>): Promise<string[]> {
  const got: string[] = [];
  for (const [key, ask] of Object.entries(asks)) {
    try {
      await ask();
      got.push(key);
    } catch {
      // not declared by the client
    }
  }
  return got;
}

/** The tool's result, or undefined when `name` is none of these. */
export async function callInputRequiredLegacy(name: string, extra: Extra): Promise<ToolResult | undefined> {
  switch (name) {
    case 'test_input_required_result_elicitation':
    case 'test_input_required_result_tampered_state':
      return { content: [text(`Hello, ${String((await elicit(extra, 'What is your name?', 'name')).content?.name)}!`)] };
    case 'test_input_required_result_sampling':
      return { content: [text(`The model said: ${String((await sample(extra, 'What is the capital of France?')).content?.text)}`)] };
    case 'test_input_required_result_list_roots':
      return { content: [text(`Roots: ${((await roots(extra)).roots ?? []).map((r) => r.uri).join(', ') || '(none)'}`)] };
    case 'test_input_required_result_request_state':
      return { content: [text(`state-ok: confirmed=${String((await elicit(extra, 'Please confirm', 'ok')).content?.ok)}`)] };
    case 'test_input_required_result_multiple_inputs': {
      const [who, greeting, found] = await Promise.all([elicit(extra, 'What is your name?', 'name'), sample(extra, 'Generate a greeting'), roots(extra)]);
      return { content: [text(`name=${String(who.content?.name)}; greeting=${String(greeting.content?.text)}; roots=${(found.roots ?? []).length}`)] };
    }
    case 'test_input_required_result_multi_round': {
      const who = await elicit(extra, 'Step 1: What is your name?', 'name');
      const color = await elicit(extra, 'Step 2: What is your favorite color?', 'color');
      return { content: [text(`${String(who.content?.name)} likes ${String(color.content?.color)}`)] };
    }
    case 'test_input_required_result_capabilities': {
      const got = await answered({ capital_question: () => sample(extra, 'What is the capital of France?'), user_name: () => elicit(extra, 'What is your name?', 'name'), client_roots: () => roots(extra) });
      return { content: [text(`answered: ${got.join(', ') || '(nothing asked)'}`)] };
    }
    default:
      return undefined;
  }
}

/** The suite's prompt that asks for context first (input-required-result-non-tool-request). */
export const INPUT_REQUIRED_LEGACY_PROMPT = { name: 'test_input_required_result_prompt', description: 'A prompt that asks for context first, the 2025-11-25 way' };

export async function getInputRequiredPrompt(extra: Extra): Promise<{ messages: { role: 'user'; content: { type: 'text'; text: string } }[] }> {
  const answer = await elicit(extra, 'What context should the prompt use?', 'context');
  return { messages: [{ role: 'user', content: text(`Context: ${String(answer.content?.context)}`) }] };
}
