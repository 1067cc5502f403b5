// The input_required (MRTR, SEP-2322) tools and prompt of the 2026-07-28 conformance
// scenarios, for the SDK 2.x fixture: each round asks for what is still missing, state
// travels sealed (createRequestStateCodec; the server's verify hook rejects a tampered one
// with -32602), and only inputs the client declared a capability for are asked for.
import { acceptedContent, inputRequired, type McpServer, type RequestStateCodec } from '@modelcontextprotocol/server';
import { z } from 'zod';

type Codec = RequestStateCodec<Record<string, unknown>>;
const text = (value: string) => ({ type: 'text' as const, text: value });
const NO_ARGS = z.object({});

const askName = (message = 'What is your name?') =>
  inputRequired.elicit({ message, requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
const askCapital = () =>
  inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 });

function samplingText(answer: unknown): string {
  const c = (answer as { content?: { type?: string; text?: string } } | undefined)?.content;
  return c?.type === 'text' ? String(c.text) : JSON.stringify(c ?? null);
}

function rootsOf(answer: unknown): { uri: string }[] {
  const roots = (answer as { roots?: unknown } | undefined)?.roots;
  return Array.isArray(roots) ? (roots as { uri: string }[]) : [];
}

/** What the client declared on this request (2026-07-28 envelope or _meta). */
export function declaredCapabilities(ctx: any): Record<string, unknown> {
  const fromEnvelope = ctx.mcpReq.envelope?.['io.modelcontextprotocol/clientCapabilities'];
  const fromMeta = ctx.mcpReq._meta?.['io.modelcontextprotocol/clientCapabilities'];
  return (fromEnvelope ?? fromMeta ?? {}) as Record<string, unknown>;
}

export function registerInputRequiredTools(server: McpServer, codec: Codec): void {
  const tool = (name: string, run: Parameters<McpServer['registerTool']>[2]) =>
    server.registerTool(name, { description: `input_required test tool ${name}`, inputSchema: NO_ARGS }, run as never);

  tool('test_input_required_result_elicitation', (_a: unknown, ctx: any) => {
    const answer = acceptedContent<{ name?: unknown }>(ctx.mcpReq.inputResponses, 'user_name');
    if (answer === undefined || typeof answer.name !== 'string') return inputRequired({ inputRequests: { user_name: askName() } });
    return { content: [text(`Hello, ${answer.name}!`)] };
  });

  tool('test_input_required_result_sampling', (_a: unknown, ctx: any) => {
    const answer = ctx.mcpReq.inputResponses?.capital_question;
    if (answer === undefined) return inputRequired({ inputRequests: { capital_question: askCapital() } });
    return { content: [text(`The model said: ${samplingText(answer)}`)] };
  });

  tool('test_input_required_result_list_roots', (_a: unknown, ctx: any) => {
    const answer = ctx.mcpReq.inputResponses?.client_roots;
    if (answer === undefined) return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    return { content: [text(`Roots: ${rootsOf(answer).map((r) => r.uri).join(', ') || '(none)'}`)] };
  });

  tool('test_input_required_result_request_state', async (_a: unknown, ctx: any) => {
    const confirmed = acceptedContent<{ ok?: unknown }>(ctx.mcpReq.inputResponses, 'confirm');
    const sealed = ctx.mcpReq.requestState() as { round?: number } | undefined;
    if (confirmed === undefined || sealed?.round !== 1) {
      const requestState = await codec.mint({ round: 1 }, ctx);
      return inputRequired({
        inputRequests: { confirm: inputRequired.elicit({ message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } }) },
        requestState,
      });
    }
    return { content: [text(`state-ok: confirmed=${String(confirmed.ok)}`)] };
  });

  tool('test_input_required_result_multiple_inputs', async (_a: unknown, ctx: any) => {
    const r = ctx.mcpReq.inputResponses ?? {};
    const sealed = ctx.mcpReq.requestState() as { multi?: boolean } | undefined;
    if (!sealed?.multi || r.user_name === undefined || r.greeting === undefined || r.client_roots === undefined) {
      const requestState = await codec.mint({ multi: true }, ctx);
      return inputRequired({
        inputRequests: {
          user_name: askName(),
          greeting: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }),
          client_roots: inputRequired.listRoots(),
        },
        requestState,
      });
    }
    const name = acceptedContent<{ name?: string }>(r, 'user_name')?.name ?? '?';
    return { content: [text(`name=${name}; greeting=${samplingText(r.greeting)}; roots=${rootsOf(r.client_roots).length}`)] };
  });

  tool('test_input_required_result_multi_round', async (_a: unknown, ctx: any) => {
    const sealed = (ctx.mcpReq.requestState() ?? {}) as { round?: number; name?: string };
    const r = ctx.mcpReq.inputResponses ?? {};
    if (sealed.round === 1) {
      const step1 = acceptedContent<{ name?: string }>(r, 'step1');
      if (step1?.name !== undefined) {
        const requestState = await codec.mint({ round: 2, name: step1.name }, ctx);
        return inputRequired({
          inputRequests: { step2: inputRequired.elicit({ message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } }) },
          requestState,
        });
      }
    }
    if (sealed.round === 2) {
      const step2 = acceptedContent<{ color?: string }>(r, 'step2');
      if (step2?.color !== undefined) return { content: [text(`${sealed.name} likes ${step2.color}`)] };
    }
    const requestState = await codec.mint({ round: 1 }, ctx);
    return inputRequired({ inputRequests: { step1: askName('Step 1: What is your name?') }, requestState });
  });

  tool('test_input_required_result_tampered_state', async (_a: unknown, ctx: any) => {
    // A tampered state never gets here: the verify hook answers -32602 first.
    if (ctx.mcpReq.requestState() !== undefined) return { content: [text('state verified')] };
    return inputRequired({ inputRequests: { user_name: askName() }, requestState: await codec.mint({ tamper: 'test' }, ctx) });
  });

  tool('test_input_required_result_capabilities', (_a: unknown, ctx: any) => {
    const caps = declaredCapabilities(ctx);
    const r = ctx.mcpReq.inputResponses ?? {};
    const wanted: Record<string, ReturnType<typeof askName>> = {};
    if (caps.sampling !== undefined && r.capital_question === undefined) wanted.capital_question = askCapital();
    if (caps.elicitation !== undefined && r.user_name === undefined) wanted.user_name = askName();
    if (caps.roots !== undefined && r.client_roots === undefined) wanted.client_roots = inputRequired.listRoots();
    if (Object.keys(wanted).length > 0) return inputRequired({ inputRequests: wanted });
    return { content: [text(`answered: ${Object.keys(r).join(', ') || '(nothing asked)'}`)] };
  });

  server.registerPrompt('test_input_required_result_prompt', { description: 'A prompt that asks for context first' }, ((ctx: any) => {
    const answer = acceptedContent<{ context?: string }>(ctx.mcpReq.inputResponses, 'user_context');
    if (answer?.context === undefined) {
      return inputRequired({
        inputRequests: { user_context: inputRequired.elicit({ message: 'What context should the prompt use?', requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] } }) },
      });
    }
    return { messages: [{ role: 'user', content: text(`Context: ${answer.context}`) }] };
  }) as never);
}
