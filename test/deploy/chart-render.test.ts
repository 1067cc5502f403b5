// The Helm chart, rendered as `helm template` would (test/deploy/helm-render): the default
// values and the production profile give objects the Kubernetes API accepts, the values are
// checked against values.schema.json as Helm checks them, the Deployment has the probes,
// shutdown and security settings the README promises, and values that would deploy something
// broken are refused with a message saying what to set.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHART_DIR, expectRendered, findObject, helmRenderBinary, mergedValues, renderChart, type KubeObject } from './helm-render.ts';
import { schemaProblems, typeProblems } from './kube-schemas.ts';

const PRODUCTION = join(CHART_DIR, 'ci/production-values.yaml');
const SECRET = 'a'.repeat(64);
/** The least a user must add to the defaults: a decision about who may call. */
const MINIMAL = { config: { identity: { resource: 'http://gh-gatehouse.mcp.svc:8080/mcp', anonymous: { enabled: true } }, upstreams: [] } };
const ALL_API_VERSIONS = ['monitoring.coreos.com/v1', 'gateway.networking.k8s.io/v1'];

const checkValues = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8')));

function kinds(objects: readonly KubeObject[]): string[] {
  return objects.map((o) => o.kind).sort();
}

interface PodSpec {
  terminationGracePeriodSeconds: number;
  securityContext: Record<string, unknown>;
  volumes: { name: string; emptyDir?: object; persistentVolumeClaim?: { claimName: string } }[];
  containers: {
    args: string[];
    livenessProbe: { httpGet: { path: string; port: string; httpHeaders: object[] } };
    readinessProbe: { httpGet: { path: string; port: string; httpHeaders: object[] } };
    lifecycle: { preStop: { exec: { command: string[] } } };
    securityContext: { readOnlyRootFilesystem: boolean; runAsNonRoot: boolean; allowPrivilegeEscalation: boolean; capabilities: { drop: string[] } };
    volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
  }[];
}

function podOf(objects: readonly KubeObject[]): { annotations: Record<string, string>; spec: PodSpec } {
  const d = findObject(objects, 'Deployment') as unknown as { spec: { template: { metadata: { annotations: Record<string, string> }; spec: PodSpec } } };
  return { annotations: d.spec.template.metadata.annotations, spec: d.spec.template.spec };
}

beforeAll(() => {
  helmRenderBinary();
}, 120_000);

describe('the chart with its default values', () => {
  const objects = () => expectRendered(renderChart([MINIMAL]));

  it('are refused until config.identity says who may call (the gateway refuses to listen beyond loopback without it)', () => {
    const r = renderChart();
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toContain('config.identity is required: the gateway listens on the pod network');
    expect(r.ok ? '' : r.error).toContain('anonymous: { enabled: true }');
  });

  it('plus an explicit anonymous identity, render a Deployment, Service, ConfigMap and ServiceAccount that the Kubernetes API accepts', () => {
    const all = objects();
    expect(kinds(all)).toEqual(['ConfigMap', 'Deployment', 'Service', 'ServiceAccount']);
    expect(schemaProblems(all)).toEqual([]);
    expect(typeProblems(all)).toEqual([]);
  });

  it('pass values.schema.json', () => {
    expect(checkValues(mergedValues()), JSON.stringify(checkValues.errors)).toBe(true);
    expect(checkValues(mergedValues([MINIMAL])), JSON.stringify(checkValues.errors)).toBe(true);
  });

  it('runs non-root on a read-only root filesystem with no capabilities, writing only to its volumes', () => {
    const { spec } = podOf(objects());
    const c = spec.containers[0]!;
    expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001 });
    expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    const writable = c.volumeMounts.filter((m) => !m.readOnly).map((m) => m.mountPath).sort();
    expect(writable).toEqual(['/tmp', '/var/lib/gatehouse']);
    expect(spec.volumes.find((v) => v.name === 'state')?.emptyDir).toBeDefined();
  });

  it('probes /healthz for liveness and /readyz for readiness, and stops after a preStop wait within the grace period', () => {
    const { spec } = podOf(objects());
    const c = spec.containers[0]!;
    // Host: localhost, so that config.allowedHosts never refuses the kubelet (Host: <pod IP>).
    const host = [{ name: 'Host', value: 'localhost' }];
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http', httpHeaders: host });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http', httpHeaders: host });
    expect(c.lifecycle.preStop.exec.command).toEqual(['node', '-e', 'setTimeout(() => {}, 5000)']);
    // 5 s preStop + 0 s drain delay + 10 s deadline + 10 s to close, inside 30 s.
    expect(spec.terminationGracePeriodSeconds).toBe(30);
    const config = (findObject(objects(), 'ConfigMap') as unknown as { data: Record<string, string> }).data['gatehouse.yaml']!;
    expect(config).toMatch(/shutdown:\n\s+deadline: 10s\n\s+drainDelay: 0s/);
    expect(c.args).toEqual(['serve', '--config', '/etc/gatehouse/gatehouse.yaml']);
  });

  it('changes the pod template checksum when the config changes, so the pods roll', () => {
    const before = podOf(objects()).annotations['checksum/config'];
    const after = podOf(expectRendered(renderChart([MINIMAL, { config: { upstreams: [{ name: 'a', url: 'http://a/mcp' }] } }]))).annotations['checksum/config'];
    expect(before).toMatch(/^[0-9a-f]{64}$/);
    expect(after).toMatch(/^[0-9a-f]{64}$/);
    expect(after).not.toBe(before);
  });
});

describe('the production profile (charts/gatehouse/ci/production-values.yaml)', () => {
  const rendered = () => expectRendered(renderChart([PRODUCTION, { httpRoute: { enabled: true, parentRefs: [{ name: 'public', namespace: 'gateways' }], hostnames: ['mcp.example.com'] } }], { apiVersions: ALL_API_VERSIONS }));

  it('renders every optional object, each one accepted by the Kubernetes API and its CRDs', () => {
    const all = rendered();
    expect(kinds(all)).toEqual([
      'ConfigMap', 'Deployment', 'HTTPRoute', 'HorizontalPodAutoscaler', 'Ingress', 'NetworkPolicy',
      'PersistentVolumeClaim', 'PodDisruptionBudget', 'Service', 'ServiceAccount', 'ServiceMonitor',
    ]);
    expect(schemaProblems(all)).toEqual([]);
    expect(typeProblems(all)).toEqual([]);
  });

  it('passes values.schema.json', () => {
    expect(checkValues(mergedValues([PRODUCTION])), JSON.stringify(checkValues.errors)).toBe(true);
  });

  it('leaves the replica count to the autoscaler, keeps a budget, and gives each pod its own audit directory on the shared claim', () => {
    const objects = rendered();
    const deployment = findObject(objects, 'Deployment') as unknown as { spec: Record<string, unknown> };
    expect(deployment.spec.replicas).toBeUndefined();
    expect(findObject(objects, 'HorizontalPodAutoscaler')).toMatchObject({ spec: { minReplicas: 3, maxReplicas: 10 } });
    expect(findObject(objects, 'PodDisruptionBudget')).toMatchObject({ spec: { maxUnavailable: 1 } });
    const cm = findObject(objects, 'ConfigMap') as unknown as { data: Record<string, string> };
    expect(cm.data['gatehouse.yaml']).toContain('dir: /var/lib/gatehouse/audit/${POD_NAME}');
    expect(podOf(objects).spec.volumes.find((v) => v.name === 'state')?.persistentVolumeClaim).toEqual({ claimName: 'gh-gatehouse-audit' });
  });
});

describe('the chart Secret', () => {
  it('holds the session secret, approval keys and API-key hashes, and the config refers to them without their values', () => {
    const apiKeys = [{ id: 'ci', sha256: 'b'.repeat(64), subject: 'ci-bot', groups: ['automation'] }];
    const all = expectRendered(renderChart([{
      secrets: { sessionSecret: SECRET, approvalKeys: ['c'.repeat(64), 'd'.repeat(64)], apiKeys },
      config: { identity: { resource: 'https://mcp.example.com/mcp' }, approvals: { console: { approvers: { groups: ['ops'] } } }, upstreams: [] },
    }]));
    expect(schemaProblems(all)).toEqual([]);
    expect(typeProblems(all)).toEqual([]);
    const secret = findObject(all, 'Secret') as unknown as { data: Record<string, string> };
    const decoded = Object.fromEntries(Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    expect(decoded).toMatchObject({ 'session-secret': SECRET, 'approval-key': 'c'.repeat(64), 'approval-key-previous': 'd'.repeat(64) });
    expect(decoded['api-keys.yaml']).toContain('ci-bot');
    const config = (findObject(all, 'ConfigMap') as unknown as { data: Record<string, string> }).data['gatehouse.yaml']!;
    expect(config).not.toContain(SECRET);
    expect(config).toContain('secret: ${GATEHOUSE_SESSION_SECRET}');
    expect(config).toContain('apiKeysFile: /etc/gatehouse-secrets/api-keys.yaml');
    expect(podOf(all).annotations['checksum/secret']).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('values the chart refuses', () => {
  const refusal = (values: object): string => {
    const r = renderChart([MINIMAL, values]);
    expect(r.ok).toBe(false);
    return r.ok ? '' : r.error;
  };

  it('more than one replica without a shared session secret', () => {
    expect(refusal({ replicaCount: 2, redis: { url: 'redis://redis:6379' } })).toMatch(
      /^Error: execution error at \(gatehouse\/templates\/[a-z]+\.yaml:\d+:\d+\): more than one replica .* needs one session secret shared by every replica.*set secrets\.sessionSecret/,
    );
  });

  it('more than one replica without Redis', () => {
    expect(refusal({ replicaCount: 3, secrets: { sessionSecret: SECRET } })).toContain('needs Redis, or each pod counts rate limits and holds pending approvals on its own: set redis.url or redis.existingSecret');
  });

  it('autoscaling, which can run more than one replica, without them', () => {
    expect(refusal({ autoscaling: { enabled: true } })).toContain('needs one session secret shared by every replica');
    expect(refusal({ autoscaling: { enabled: true }, secrets: { existingSecret: 'mine' } })).toContain('needs Redis');
  });

  it('a grace period that does not cover the preStop wait and the drain', () => {
    expect(refusal({ shutdown: { preStopSeconds: 5, drainDelaySeconds: 5, deadlineSeconds: 10, terminationGracePeriodSeconds: 30 } })).toContain(
      'shutdown.terminationGracePeriodSeconds (30) must be longer than shutdown.preStopSeconds + drainDelaySeconds + deadlineSeconds + the 10 s the gateway may take to close (30)',
    );
  });

  it('approvals without a sealing key, API keys without identity, two policy directories', () => {
    expect(refusal({ config: { approvals: { timeout: '1m' }, upstreams: [] } })).toContain('config.approvals needs a key sealing approval state');
    expect(refusal({ config: { identity: null }, listen: { host: '127.0.0.1' }, secrets: { apiKeys: [{ id: 'a', sha256: 'b'.repeat(64), subject: 's' }] } })).toContain('secrets.apiKeys needs config.identity');
    expect(refusal({ policies: { 'a.yaml': 'rules: []' }, config: { policy: { dir: 'mine' }, upstreams: [] } })).toContain('config.policy.dir and policies both set');
  });

  it('a cluster older than the Kubernetes 1.25 the chart declares', () => {
    const r = renderChart([MINIMAL], { kubeVersion: 'v1.24.9' });
    expect(r.ok ? '' : r.error).toBe('Error: chart requires kubeVersion: >=1.25.0-0 which is incompatible with Kubernetes v1.24.9');
  });

  it('a ReadWriteOnce audit claim shared by several replicas', () => {
    expect(refusal({ replicaCount: 2, secrets: { sessionSecret: SECRET }, redis: { url: 'redis://r:6379' }, audit: { persistence: { enabled: true } } })).toContain(
      'audit.persistence with more than one replica needs audit.persistence.accessModes to include ReadWriteMany',
    );
  });

  it('values.schema.json: chart-owned config keys, malformed secrets and unknown keys', () => {
    const errors = (values: object): string[] => {
      checkValues(mergedValues([values]));
      return (checkValues.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
    };
    expect(errors({ config: { upstreams: [], sessions: { secret: 'x' } } })).toContain('/config/sessions/secret must NOT be valid');
    expect(errors({ config: { upstreams: [], listen: { port: 9000 } } })).toContain('/config/listen must NOT have additional properties');
    expect(errors({ config: { upstreams: [], audit: { dir: '/data' } } })).toContain('/config/audit/dir must NOT be valid');
    expect(errors({ config: { upstreams: [], shutdown: { deadline: '1m' } } })).toContain('/config/shutdown must NOT be valid');
    expect(errors({ secrets: { sessionSecret: 'too-short' } })[0]).toMatch(/^\/secrets\/sessionSecret must match pattern/);
    expect(errors({ replicas: 2 })).toContain(' must NOT have additional properties');
    expect(errors({ policies: { '../escape.yaml': 'rules: []' } }).join()).toContain('/policies must match pattern');
  });
});
