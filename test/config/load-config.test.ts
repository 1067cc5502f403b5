import { afterAll, describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, parseConfig } from '../../src/config/load-config.ts';
import { FILE, formatOf, HEX_SECRET, issuesOf, parse } from './parse-errors.ts';
import { CONFIG_SCHEMA } from '../../src/config/config-schema.ts';
import { SCHEMA_FILE } from '../../src/config/write-schema-file.ts';

/** The audit section every config gets when it says nothing about audit (beside FILE). */
const DEFAULT_TOOL_SEARCH = { enabled: false, fullListFor: [], defaultLimit: 8 };
const DEFAULT_SHAPING = {
  enabled: false,
  defaults: { maxBytes: 100_000, strategy: 'head', structured: 'keep', maxMediaBytes: 1_048_576 },
  rules: [],
  redact: false,
  keep: { ttlMs: 600_000, maxBytes: 67_108_864, maxEntryBytes: 8_388_608, pageBytes: 65_536 },
};
const DEFAULT_AUDIT = {
  enabled: true,
  dir: '/etc/gatehouse/audit',
  file: 'gatehouse-audit.jsonl',
  rotate: { maxBytes: 67_108_864, maxFiles: 20 },
  durability: 'sync',
  batchWindowMs: 50,
  writeTimeoutMs: 5000,
  retryIntervalMs: 1000,
  onFailure: 'closed',
  maxQueue: 10_000,
  maxQueueBytes: 64 * 1024 * 1024,
  groupCommitWaitMs: 3,
  maxStringBytes: 1024,
  record: { arguments: 'digest', results: 'digest' },
  redact: {
    keys: ['password', 'passwd', 'token', 'secret', 'authorization', 'cookie', 'credential', 'api[_-]?key', 'private[_-]?key'],
    paths: [],
    patterns: ['bearer-token', 'jwt', 'aws-access-key-id', 'card-number', 'private-key'].map((name) => ({ kind: 'builtin', name })),
  },
  rules: [],
};

/** The sections FULL leaves out as well as the minimal config does: all defaults. */
const UNSET_SECTIONS = {
  listRetry: { initialDelayMs: 1000, maxDelayMs: 60_000, afterErrors: 3 },
  identity: undefined,
  policy: undefined,
  validation: { arguments: true, outputs: 'warn' },
  rateLimits: { store: 'memory' },
  audit: DEFAULT_AUDIT,
  shutdown: { drainDelayMs: 0, deadlineMs: 10_000 },
  toolSearch: DEFAULT_TOOL_SEARCH,
  resultShaping: DEFAULT_SHAPING,
  servers: [],
  overlays: { tools: [], prompts: [] },
};

const UPSTREAM_DEFAULT_LIMITS = { maxAnswerBytes: 67_108_864, maxJsonDepth: 64 };

const FULL = `# yaml-language-server: $schema=./schema/gatehouse.schema.json
listen: { host: 127.0.0.2, port: 9090, path: /gateway }
separator: "--"
maxNameLength: 128
allowedOrigins: ["https://app.example.com", "*"]
limits: { maxBodyBytes: 1000, maxHeaderBytes: 2000, maxHeaderCount: 30, bodyTimeout: 5s, maxJsonDepth: 32, maxUpstreamAnswerBytes: 1048576, pageSize: 50 }
listDeadline: 2s
sessions: { secret: "\${GATEHOUSE_SESSION_SECRET}", idleTimeout: 5m }
metrics: { processMetrics: true }
upstreams:
  - name: weather
    url: http://127.0.0.1:9001/mcp
    headers: { Authorization: "Bearer \${WEATHER_TOKEN}" }
    timeout: 10s
    listTtl: 1500
    session: perClient
    maxClientSessions: 5
  - name: files
    command: node
    args: [server.js, --root, /data]
    env: { ROOT: /data }
    cwd: ./somewhere
    prefix: fs
    restart: { initialDelay: 250ms, maxDelay: 1h }
`;

const SESSION_AND_STREAM_DEFAULTS = { maxSessions: 50_000, maxSessionsPerPrincipal: 10_000, maxStreams: 10_000, maxStreamsPerPrincipal: 1_000, streamMaxLifetimeMs: 3_600_000, streamIdleTimeoutMs: 600_000, maxConcurrentPerPrincipal: 16, maxQueuedCalls: 256, queueTimeoutMs: 10_000, maxInflightAnswerBytes: 268_435_456, maxConnections: 20_000, maxConcurrentRequests: 2_048, maxConcurrentRequestsPerPrincipal: 256, inputTimeoutMs: 120_000, maxSuspendedCalls: 1_000, maxSuspendedCallsPerPrincipal: 20 };
const CONCURRENCY = { maxConcurrent: 64, maxConcurrentPerPrincipal: 16 };

describe('parseConfig: valid configs', () => {
  it('normalizes a full config into the exact GatewayConfig', () => {
    const config = parse(FULL, { GATEHOUSE_SESSION_SECRET: HEX_SECRET, WEATHER_TOKEN: 'tok-1' });
    expect(config).toEqual({
      file: FILE,
      listen: { host: '127.0.0.2', port: 9090, path: '/gateway' },
      separator: '--',
      maxNameLength: 128,
      allowedOrigins: ['https://app.example.com', '*'],
      allowedHosts: [],
      limits: { maxBodyBytes: 1000, maxHeaderBytes: 2000, maxHeaderCount: 30, bodyTimeoutMs: 5000, maxJsonDepth: 32, maxUpstreamAnswerBytes: 1_048_576, pageSize: 50, catalogCacheBytes: 268_435_456, ...SESSION_AND_STREAM_DEFAULTS },
      listDeadlineMs: 2000,
      sessions: { secret: HEX_SECRET, idleTimeoutMs: 300_000 },
      metrics: { processMetrics: true },
      ...UNSET_SECTIONS,
      upstreams: [
        {
          kind: 'http',
          name: 'weather',
          prefix: 'weather',
          url: 'http://127.0.0.1:9001/mcp',
          headers: { Authorization: 'Bearer tok-1' },
          headerFiles: [],
          auth: undefined,
          timeoutMs: 10_000,
          listTtlMs: 1500,
          limits: { maxAnswerBytes: 1_048_576, maxJsonDepth: 32 },
          concurrency: CONCURRENCY,
          session: { mode: 'perClient', maxClientSessions: 5 },
        },
        {
          kind: 'stdio',
          name: 'files',
          prefix: 'fs',
          command: 'node',
          args: ['server.js', '--root', '/data'],
          env: { ROOT: '/data' },
          cwd: '/etc/gatehouse/somewhere',
          timeoutMs: 30_000,
          listTtlMs: 60_000,
          limits: { maxAnswerBytes: 1_048_576, maxJsonDepth: 32 },
          concurrency: CONCURRENCY,
          restart: { initialDelayMs: 250, maxDelayMs: 3_600_000 },
        },
      ],
    });
  });

  it('fills every default', () => {
    const config = parse('upstreams:\n  - { name: a, url: "https://a.example/mcp" }\n  - { name: b, command: srv }\n');
    expect(config).toEqual({
      file: FILE,
      listen: { host: '127.0.0.1', port: 8080, path: '/mcp' },
      separator: '__',
      maxNameLength: 64,
      allowedOrigins: [],
      allowedHosts: [],
      limits: { maxBodyBytes: 4_194_304, maxHeaderBytes: 16_384, maxHeaderCount: 100, bodyTimeoutMs: 30_000, maxJsonDepth: 64, maxUpstreamAnswerBytes: 67_108_864, pageSize: 500, catalogCacheBytes: 268_435_456, ...SESSION_AND_STREAM_DEFAULTS },
      listDeadlineMs: 5000,
      sessions: { secret: undefined, idleTimeoutMs: 3_600_000 },
      metrics: { processMetrics: false },
      ...UNSET_SECTIONS,
      upstreams: [
        { kind: 'http', name: 'a', prefix: 'a', url: 'https://a.example/mcp', headers: {}, headerFiles: [], auth: undefined, timeoutMs: 30_000, listTtlMs: 60_000, limits: UPSTREAM_DEFAULT_LIMITS, concurrency: CONCURRENCY, session: { mode: 'shared', maxClientSessions: 100 } },
        {
          kind: 'stdio', name: 'b', prefix: 'b', command: 'srv', args: [], env: {}, cwd: '/etc/gatehouse',
          timeoutMs: 30_000, listTtlMs: 60_000, limits: UPSTREAM_DEFAULT_LIMITS, concurrency: CONCURRENCY, restart: { initialDelayMs: 500, maxDelayMs: 30_000 },
        },
      ],
    });
  });

  it('returns a deeply frozen config', () => {
    const config = parse(FULL, { GATEHOUSE_SESSION_SECRET: HEX_SECRET, WEATHER_TOKEN: 't' });
    const [http, stdio] = config.upstreams;
    const parts = [config, config.listen, config.upstreams, config.sessions, http, stdio];
    expect(parts.map((p) => Object.isFrozen(p))).toEqual([true, true, true, true, true, true]);
    expect(http?.kind === 'http' && Object.isFrozen(http.headers)).toBe(true);
    expect(stdio?.kind === 'stdio' && Object.isFrozen(stdio.args) && Object.isFrozen(stdio.restart)).toBe(true);
    expect(() => {
      (config.listen as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(config.listen.port).toBe(9090);
  });
});

describe('parseConfig: ${ENV} interpolation', () => {
  const headerOf = (value: string, env: NodeJS.ProcessEnv) => {
    const u = parse(`upstreams:\n  - name: a\n    url: http://h/mcp\n    headers: { X-Key: "${value}" }\n`, env).upstreams[0];
    return u?.kind === 'http' ? u.headers['X-Key'] : undefined;
  };

  it('substitutes set variables, defaults and escapes', () => {
    expect(headerOf('k=${KEY}', { KEY: 'v1' })).toBe('k=v1');
    expect(headerOf('${KEY:-fallback}', {})).toBe('fallback');
    expect(headerOf('${KEY:-fallback}', { KEY: '' })).toBe('fallback');
    expect(headerOf('${KEY:-fallback}', { KEY: 'set' })).toBe('set');
    expect(headerOf('${KEY}', { KEY: '' })).toBe('');
    expect(headerOf('$${KEY} costs $5', { KEY: 'v1' })).toBe('${KEY} costs $5');
  });

  it('reports a missing variable with file, path, line and variable name', () => {
    const text = 'upstreams:\n  - name: a\n    url: http://h/mcp\n    headers: { Authorization: "Bearer ${WEATHER_TOKEN}" }\n';
    expect(issuesOf(() => parse(text))).toEqual([
      {
        file: FILE,
        path: '/upstreams/0/headers/Authorization',
        line: 4,
        column: 31,
        message: 'environment variable "WEATHER_TOKEN" is not set (write ${WEATHER_TOKEN:-default} to give a default)',
      },
    ]);
  });

  it('takes the URL from the environment and checks its scheme afterwards', () => {
    const text = 'upstreams:\n  - { name: a, url: "${BASE}/mcp" }\n';
    const u = parse(text, { BASE: 'https://x.example' }).upstreams[0];
    expect(u?.kind === 'http' && u.url).toBe('https://x.example/mcp');
    expect(formatOf(() => parse(text, { BASE: 'ftp://x' }))).toBe(
      `${FILE}:2:21 /upstreams/0/url: expected an http:// or https:// URL, got scheme "ftp:"`,
    );
  });
});

describe('loadConfig', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the file and resolves cwd against its directory', () => {
    const file = path.join(dir, 'gatehouse.yaml');
    writeFileSync(file, 'upstreams:\n  - { name: a, command: x, cwd: sub/dir }\n  - { name: b, command: y, cwd: /abs }\n');
    const config = loadConfig(file, {});
    expect(config.file).toBe(file);
    expect(config.upstreams.map((u) => u.kind === 'stdio' && u.cwd)).toEqual([path.join(dir, 'sub/dir'), '/abs']);
  });

  it('names the file it cannot read', () => {
    const missing = path.join(dir, 'missing.yaml');
    expect(formatOf(() => loadConfig(missing, {}))).toBe(`${missing}: cannot read the config file: no such file`);
    expect(formatOf(() => loadConfig(dir, {}))).toBe(`${dir}: cannot read the config file: is a directory, not a file`);
  });
});

describe('published schema', () => {
  it('schema/gatehouse.schema.json equals CONFIG_SCHEMA (regenerate: npx tsx src/config/write-schema-file.ts)', () => {
    expect(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'))).toEqual(CONFIG_SCHEMA);
  });
});
