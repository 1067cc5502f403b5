// What the conformance suite's server scenarios ask of the server under test, as plain data
// shared by the two fixture servers (sdk1-server.ts with @modelcontextprotocol/sdk 1.x,
// sdk2-server.ts with @modelcontextprotocol/server 2.x): the names, texts, schemas and
// contents each scenario reads back. Behaviour (logging, progress, server-to-client
// requests, input_required) is each SDK's own and lives in its server file.

/** A 1x1 red PNG. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A valid WAV: 16-bit mono PCM at 8 kHz, 8 silent samples. */
export function wavBase64(): string {
  const samples = 8;
  const buf = Buffer.alloc(44 + samples * 2);
  buf.write('RIFF', 0);
  buf.writeUInt32LE(36 + samples * 2, 4);
  buf.write('WAVEfmt ', 8);
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(8000, 24);
  buf.writeUInt32LE(16000, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36);
  buf.writeUInt32LE(samples * 2, 40);
  return buf.toString('base64');
}

const EMPTY_OBJECT = { type: 'object', properties: {} } as const;

export const TOOL_DESCRIPTIONS: Readonly<Record<string, string>> = {
  test_simple_text: 'Returns a simple text',
  test_image_content: 'Returns an image',
  test_audio_content: 'Returns an audio clip',
  test_embedded_resource: 'Returns an embedded resource',
  test_multiple_content_types: 'Returns text, image and resource content',
  test_tool_with_logging: 'Sends three log messages while it runs',
  test_tool_with_progress: 'Reports progress 0, 50 and 100 of 100',
  test_error_handling: 'Always fails as a tool (isError)',
  test_reconnection: 'Closes its SSE stream before answering, so the client reconnects',
};

export const SIMPLE_TEXT = 'This is a simple text response for testing.';
export const ERROR_TEXT = 'This tool intentionally returns an error for testing';
export const LOG_STEPS = ['Tool execution started', 'Tool processing data', 'Tool execution completed'] as const;

export const EMBEDDED_RESOURCE = { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' };

export function mixedContent(): unknown[] {
  return [
    { type: 'text', text: 'Multiple content types test:' },
    { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
    { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
  ];
}

/** json-schema-2020-12: the input schema must come back unchanged from tools/list. */
export const JSON_SCHEMA_TOOL = 'json_schema_2020_12_tool';
export const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

export const SAMPLING_INPUT = { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] };
export const ELICITATION_INPUT = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] };
export const NO_INPUT = EMPTY_OBJECT;

export function samplingRequest(prompt: string): Record<string, unknown> {
  return { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 };
}

export function elicitationRequest(message: string): Record<string, unknown> {
  return {
    message,
    requestedSchema: {
      type: 'object',
      properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
      required: ['username', 'email'],
    },
  };
}

/** SEP-1034: a default for every primitive type. */
export const DEFAULTS_ELICITATION = {
  message: 'Please review these values; every field has a default',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'Name', default: 'John Doe' },
      age: { type: 'integer', description: 'Age', default: 30 },
      score: { type: 'number', description: 'Score', default: 95.5 },
      status: { type: 'string', description: 'Status', enum: ['active', 'inactive', 'pending'], default: 'active' },
      verified: { type: 'boolean', description: 'Verified', default: true },
    },
  },
};

/** SEP-1330: the five enum shapes. */
export const ENUMS_ELICITATION = {
  message: 'Pick some options',
  requestedSchema: {
    type: 'object',
    properties: {
      untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
      titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }] },
      legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
      untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
      titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] } },
    },
  },
};

export const STATIC_TEXT = { uri: 'test://static-text', name: 'static-text', description: 'A static text resource', mimeType: 'text/plain', text: 'This is the content of the static text resource.' };
export const STATIC_BINARY = { uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource', mimeType: 'image/png', blob: PNG_BASE64 };
export const WATCHED = { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource clients may subscribe to', mimeType: 'text/plain', text: 'Watched resource content.' };
export const TEMPLATE = { uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'Data for an id', mimeType: 'application/json' };

export function templateText(id: string): string {
  return JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
}

export const PROMPT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  test_simple_prompt: 'A prompt without arguments',
  test_prompt_with_arguments: 'A prompt with two arguments',
  test_prompt_with_embedded_resource: 'A prompt that embeds a resource',
  test_prompt_with_image: 'A prompt with an image',
};

export const SIMPLE_PROMPT_TEXT = 'This is a simple prompt for testing.';

export function argumentsPromptText(arg1: string, arg2: string): string {
  return `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`;
}

export function embeddedResourcePrompt(resourceUri: string): unknown[] {
  return [
    { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
    { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
  ];
}

export function imagePrompt(): unknown[] {
  return [
    { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
    { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
  ];
}

/** completion-complete asks for completions of arg1 of test_prompt_with_arguments. */
export const ARG1_VALUES = ['paris', 'park', 'party', 'test', 'testing'];

export function completeArg1(value: string): string[] {
  return ARG1_VALUES.filter((v) => v.startsWith(value));
}

/** Only loopback names may reach a fixture (dns-rebinding-protection): Host and Origin. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return true;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
  return ['localhost', '127.0.0.1', '[::1]'].includes(name.toLowerCase());
}

export function isLoopbackOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  try {
    return isLoopbackHost(new URL(origin).host);
  } catch {
    return false;
  }
}
