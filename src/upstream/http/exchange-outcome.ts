// What one JSON-RPC exchange with an HTTP upstream is given (http-exchange.ts) and what it can
// come to: the answer, or the way it failed, each of which http-upstream.ts and
// answer-meaning.ts turn into the gateway's result.
import type { Pool } from 'undici';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../../protocol/message.ts';
import type { AnswerBudget } from '../../limits/answer-budget.ts';
import type { ResultRelay } from '../../protocol/result-relay.ts';
import type { ResponseHeaders } from './raw-response.ts';
import type { Abortable } from '../../protocol/cancellation.ts';

export interface ExchangeInput {
  pool: Pool;
  path: string;
  /** Not modified; may be shared between calls. */
  headers: Readonly<Record<string, string>>;
  body: JsonObject;
  /** The caller going away (client disconnect = cancel, MCP 2026-07-28, basic/patterns/cancellation). */
  signal?: AbortSignal;
  /** Instead of `signal`: listened to without an AbortSignal (protocol/cancellation.ts). */
  cancellation?: Abortable;
  /** Hard limit until the response; unset: none. */
  timeoutMs?: number;
  /** Largest JSON body (bytes) or SSE event (characters); unset: MAX_EVENT_LENGTH. */
  maxAnswerBytes?: number;
  onNotification?: (n: JsonRpcNotification) => void;
  onServerRequest?: (r: JsonRpcRequest) => void;
  /** A 2025-11-25 exchange: a stream closed early may be resumed with GET + Last-Event-ID. */
  resumable?: boolean;
  /** The upstream primed its stream for resumption (an event with an id and no data), once. */
  onPrimed?: (retryMs: number | undefined) => void;
  /** Shared by every exchange in flight: the bytes an answer holds while it is read. */
  budget?: AnswerBudget;
  /** A big JSON result may go to the client as it comes (relayed-body.ts). */
  relay?: { relay: ResultRelay; maxJsonDepth: number };
}

export type ExchangeOutcome =
  | { kind: 'response'; status: number; headers: ResponseHeaders; message: JsonRpcResponse }
  | { kind: 'accepted'; status: number; headers: ResponseHeaders }
  | { kind: 'http_error'; status: number; headers: ResponseHeaders; bodyText: string; message?: JsonRpcResponse }
  /** `responded`: a status line had arrived (the stream broke later), so the upstream saw the request. */
  | { kind: 'network_error'; error: Error; responded: boolean }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  /** One SSE event or the JSON body went over `limit` (characters of an event, bytes of a body). */
  | { kind: 'too_large'; limit: number }
  /** The answers in flight together hold all of limits.maxInflightAnswerBytes (`limit`). */
  | { kind: 'over_budget'; limit: number }
  /** The result went to the client as it came (relayed-body.ts), checked to its last byte. */
  | { kind: 'relayed'; isError?: true }
  /** A relay's scan refused the answer: before any byte reached the client (`invalid_answer`) or after (`relay_broken`). */
  | { kind: 'invalid_answer' | 'relay_broken'; reason: string; tooDeep: boolean };
