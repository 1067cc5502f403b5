// JSON Schema (2020-12) of a policy test file (`*.test.yaml`, kept next to the policies and
// run by `gatehouse policy test`). Published as schema/policy-test.schema.json; a test keeps
// the file equal to this const. The runner is policy-tests.ts.

/** A principal as tests and `gatehouse policy explain --as` write it. */
export const PRINCIPAL_SCHEMA = {
  description: 'Who calls: a subject string, or a principal.',
  oneOf: [
    { type: 'string', minLength: 1 },
    {
      type: 'object',
      additionalProperties: false,
      properties: {
        subject: { type: 'string', minLength: 1 },
        groups: { type: 'array', items: { type: 'string' } },
        scopes: { type: 'array', items: { type: 'string' } },
        claims: { type: 'object' },
        anonymous: { type: 'boolean' },
      },
    },
  ],
  errorMessage: 'expected a subject string or { subject, groups, scopes, claims, anonymous }',
};

function target(description: string, withCallData: boolean): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    tool: { description: 'Exposed tool name.', type: 'string', minLength: 1 },
    prompt: { description: 'Exposed prompt name.', type: 'string', minLength: 1 },
    resource: { description: 'Resource URI as clients see it.', type: 'string', minLength: 1 },
    resourceTemplate: { description: 'Resource URI template as clients see it.', type: 'string', minLength: 1 },
    upstream: { description: 'Upstream name. Default: the part of the name before the first "__".', type: 'string', minLength: 1 },
    server: { description: 'The virtual server the call comes to. Default: the default endpoint (or `policy test --server`).', type: 'string', minLength: 1 },
  };
  if (withCallData) {
    properties['arguments'] = { description: 'Call arguments.', type: 'object' };
    properties['params'] = {
      description: 'Mcp-Param-* values by name without the prefix, e.g. { Region: eu-west }.',
      type: 'object',
      additionalProperties: { type: ['string', 'number', 'boolean'] },
    };
  }
  return {
    description,
    type: 'object',
    additionalProperties: false,
    properties,
    oneOf: [
      { required: ['tool'] },
      { required: ['prompt'] },
      { required: ['resource'] },
      { required: ['resourceTemplate'] },
    ],
    errorMessage: 'expected exactly one of tool, prompt, resource, resourceTemplate (plus upstream, server' + (withCallData ? ', arguments, params)' : ')'),
  };
}

export const POLICY_TEST_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Gatehouse policy tests',
  description: 'Test cases for the policies next to this file: who, what, and the expected decision.',
  type: 'object',
  additionalProperties: false,
  required: ['tests'],
  properties: {
    tests: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'as', 'expect'],
        properties: {
          name: { description: 'What the case shows.', type: 'string', minLength: 1 },
          as: PRINCIPAL_SCHEMA,
          call: target('A call (tools/call, prompts/get, resources/read).', true),
          list: target('Visibility in a list.', false),
          expect: {
            description: 'allow / deny / approve for a call; visible / hidden for a list.',
            enum: ['allow', 'deny', 'approve', 'visible', 'hidden'],
          },
          expectRule: { description: 'Id of the rule that must decide (or "default").', type: 'string', minLength: 1 },
        },
        oneOf: [{ required: ['call'] }, { required: ['list'] }],
        errorMessage: 'a test needs `name`, `as`, `expect` and exactly one of `call` or `list`',
      },
    },
  },
} as const;

export interface RawTestTarget {
  tool?: string;
  prompt?: string;
  resource?: string;
  resourceTemplate?: string;
  upstream?: string;
  server?: string;
  arguments?: Record<string, unknown>;
  params?: Record<string, string | number | boolean>;
}

export type RawTestPrincipal =
  | string
  | { subject?: string; groups?: string[]; scopes?: string[]; claims?: Record<string, unknown>; anonymous?: boolean };

export interface RawTestCase {
  name: string;
  as: RawTestPrincipal;
  call?: RawTestTarget;
  list?: RawTestTarget;
  expect: 'allow' | 'deny' | 'approve' | 'visible' | 'hidden';
  expectRule?: string;
}

export interface RawTestFile {
  tests: readonly RawTestCase[];
}
