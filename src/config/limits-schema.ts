// The `limits` section of the gateway config: what one request or one upstream answer may
// cost, each bounded with a default (README, Limits, says what each one refuses; every one
// but pageSize is counted in gatehouse_limit_hits_total under its key). Shape only;
// normalize-config.ts fills the defaults.
import { defaultedDurationSchema, type RawDuration } from './duration.ts';

export function positiveInt(description: string, fallback: number): Record<string, unknown> {
  return { description: `${description} Default ${fallback}.`, default: fallback, type: 'integer', minimum: 1 };
}

export const LIMITS_CONFIG_SCHEMA = {
  description: 'What one request or one upstream answer may cost, and list pagination. README, Limits, lists each limit and what happens when it is hit.',
  type: 'object',
  additionalProperties: false,
  properties: {
    maxBodyBytes: positiveInt('Largest request body accepted, in bytes.', 4_194_304),
    maxHeaderBytes: positiveInt('Largest total request header size, in bytes.', 16_384),
    maxHeaderCount: positiveInt('Most request headers accepted.', 100),
    bodyTimeout: defaultedDurationSchema('Longest wait for the rest of a request body once the gateway has begun to read it (408 after).', '30s', '30s'),
    maxJsonDepth: {
      description:
        'Deepest nesting of objects and arrays accepted in a request, an upstream answer or an upstream list item. At most 256, so that every accepted value can be recorded in the audit trail. Default 64.',
      default: 64,
      type: 'integer',
      minimum: 8,
      maximum: 256,
    },
    maxUpstreamAnswerBytes: positiveInt(
      'Largest answer accepted from an upstream: one line of a stdio upstream, one JSON body or SSE event of an HTTP one, in bytes.',
      67_108_864,
    ),
    pageSize: positiveInt("Items per page of the gateway's merged lists.", 500),
  },
};

/** The section after schema validation. */
export interface RawLimitsConfig {
  maxBodyBytes?: number;
  maxHeaderBytes?: number;
  maxHeaderCount?: number;
  bodyTimeout?: RawDuration;
  maxJsonDepth?: number;
  maxUpstreamAnswerBytes?: number;
  pageSize?: number;
}
