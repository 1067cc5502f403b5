import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSchemaCheck } from '../config/schema-issues.ts';
import { AUDIT_CONFIG_SCHEMA, byteSize, normalizeAuditConfig } from './audit-config.ts';
import { createAuditBodies } from './audit-body.ts';
import { REDACTED } from './redact.ts';

describe('audit config', () => {
  it('defaults everything when the key is absent: on, sync, fail closed, digests', () => {
    const r = normalizeAuditConfig(undefined, '/etc/gatehouse');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({
      enabled: true,
      dir: path.resolve('/etc/gatehouse/audit'),
      file: 'gatehouse-audit.jsonl',
      rotate: { maxBytes: 64 * 1024 * 1024, maxFiles: 20 },
      durability: 'sync',
      batchWindowMs: 50,
      writeTimeoutMs: 5000,
      retryIntervalMs: 1000,
      onFailure: 'closed',
      maxQueue: 10000,
      record: { arguments: 'digest', results: 'digest' },
      rules: [],
    });
    expect(r.value.redact.patterns.map((p) => p.kind === 'builtin' && p.name)).toEqual(['bearer-token', 'jwt', 'aws-access-key-id', 'card-number', 'private-key']);
    expect(Object.isFrozen(r.value.redact.keys)).toBe(true);
  });

  it('resolves dir against the config directory and converts sizes and durations', () => {
    const r = normalizeAuditConfig({ dir: '../logs', rotate: { maxBytes: '500KB', maxFiles: 0 }, batchWindow: '1s', durability: 'batch' }, '/srv/gw');
    expect(r.ok && r.value).toMatchObject({ dir: '/srv/logs', rotate: { maxBytes: 500_000, maxFiles: 0 }, batchWindowMs: 1000, durability: 'batch' });
    expect(byteSize('64MiB')).toBe(67108864);
    expect(byteSize(4096)).toBe(4096);
  });

  it('reports schema problems and bad regexes and paths, with JSON pointers', () => {
    const r = normalizeAuditConfig({ durability: 'eventually', rotate: { maxBytes: '1TB' }, file: 'a/b', extra: 1 }, '/');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.map((i) => i.path).sort()).toEqual(['/durability', '/extra', '/file', '/rotate/maxBytes']);
    const bad = normalizeAuditConfig({ redact: { keys: ['(unclosed'], paths: ['$.a[b]'], patterns: ['jwt', { name: 'x', regex: '[' }] } }, '/');
    expect(!bad.ok && bad.error.map((i) => i.path)).toEqual(['/redact/keys/0', '/redact/paths/0', '/redact/patterns/1/regex']);
  });

  it('has a schema that ajv accepts in strict mode and that describes every property', () => {
    expect(createSchemaCheck(AUDIT_CONFIG_SCHEMA)({ rules: [{ tool: 'fs__*', arguments: 'full' }] })).toEqual([]);
    const undescribed: string[] = [];
    const walk = (schema: Record<string, unknown>, at: string): void => {
      for (const [key, sub] of Object.entries((schema['properties'] ?? {}) as Record<string, Record<string, unknown>>)) {
        if (typeof sub['description'] !== 'string') undescribed.push(`${at}/${key}`);
        walk(sub, `${at}/${key}`);
        if (typeof sub['items'] === 'object') walk(sub['items'] as Record<string, unknown>, `${at}/${key}/items`);
      }
    };
    walk(AUDIT_CONFIG_SCHEMA, '');
    expect(undescribed).toEqual([]);
  });
});

describe('argument and result bodies', () => {
  const config = normalizeAuditConfig(
    {
      record: { arguments: 'digest', results: 'none' },
      rules: [
        { tool: 'fs__read_*', results: 'redacted' },
        { tool: 'fs__*', arguments: 'full' },
        { tool: 'vault__*', arguments: 'none', results: 'none' },
        { tool: '*', arguments: 'redacted' },
      ],
    },
    '/',
  );
  if (!config.ok) throw new Error('config');
  const bodies = createAuditBodies(config.value);

  it('takes, per field, the first rule that matches and sets it', () => {
    expect(bodies.modes('fs__read_file')).toEqual({ arguments: 'full', results: 'redacted' });
    expect(bodies.modes('vault__get')).toEqual({ arguments: 'none', results: 'none' });
    expect(bodies.modes('github__create_issue')).toEqual({ arguments: 'redacted', results: 'none' });
    expect(bodies.modes(undefined)).toEqual({ arguments: 'digest', results: 'none' });
  });

  it('builds digest, redacted, full or no body', () => {
    expect(bodies.arguments(undefined, { a: 1 })).toEqual({ digest: expect.stringMatching(/^sha256:/) });
    expect(bodies.arguments('fs__read_file', { path: '/x', token: 't' })).toEqual({ full: { path: '/x', token: 't' } });
    expect(bodies.result('fs__read_file', { content: [{ type: 'text', text: 'password: x' }], apiKey: 'k' })).toEqual({
      redacted: { content: [{ type: 'text', text: 'password: x' }], apiKey: REDACTED },
    });
    expect(bodies.arguments('vault__get', { a: 1 })).toBeUndefined();
    expect(bodies.arguments('x__y', undefined)).toBeUndefined();
  });
});
