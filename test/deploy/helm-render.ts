// Renders charts/gatehouse for tests with test/deploy/helm-render (Go text/template + sprig +
// Helm's template functions; Helm itself is not packaged for the CI machine). The Go program
// is built once per source version into the OS temp directory and reused by every test file
// and run; without Go the tests fail here, saying what to install, rather than skip.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';

export const REPO_ROOT = new URL('../..', import.meta.url).pathname;
export const CHART_DIR = join(REPO_ROOT, 'charts/gatehouse');
const SOURCE_DIR = join(REPO_ROOT, 'test/deploy/helm-render');

/** Debian's Go: sprig and yaml.v2 come from golang-github-masterminds-sprig-dev in GOPATH layout. */
const GO_ENV = { GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOFLAGS: '', GOCACHE: join(tmpdir(), 'gatehouse-go-cache') };
const INSTALL_HINT = 'apt-get install -y golang-go golang-github-masterminds-sprig-dev (.ci/run does this)';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

export interface RenderedObject {
  /** The template file, as `# Source:` names it. */
  source: string;
  object: KubeObject;
}

export type RenderResult = { ok: true; objects: RenderedObject[] } | { ok: false; error: string };

let binary: string | undefined;

function goVersion(): string {
  const r = spawnSync('go', ['version'], { encoding: 'utf8', env: { ...process.env, ...GO_ENV } });
  if (r.error || r.status !== 0) throw new Error(`Go is needed to render the Helm chart in tests and was not found: ${INSTALL_HINT}`);
  return r.stdout.trim();
}

/** The renderer's path, built on first use. */
export function helmRenderBinary(): string {
  if (binary) return binary;
  const hash = createHash('sha256').update(goVersion());
  for (const name of readdirSync(SOURCE_DIR).filter((n) => n.endsWith('.go')).sort()) {
    hash.update(name).update(readFileSync(join(SOURCE_DIR, name)));
  }
  const dir = join(tmpdir(), `gatehouse-helm-render-${hash.digest('hex').slice(0, 16)}`);
  const target = join(dir, 'helm-render');
  if (!existsSync(target)) {
    mkdirSync(dir, { recursive: true });
    // Built under a unique name and renamed, so test files building at once never see half a file.
    const partial = `${target}.${process.pid}.partial`;
    const r = spawnSync('go', ['build', '-o', partial, '.'], { cwd: SOURCE_DIR, encoding: 'utf8', env: { ...process.env, ...GO_ENV } });
    if (r.status !== 0) {
      throw new Error(`building test/deploy/helm-render failed (${INSTALL_HINT}):\n${r.stderr}`);
    }
    renameSync(partial, target);
  }
  binary = target;
  return target;
}

export interface RenderOptions {
  release?: string;
  namespace?: string;
  /** Extra API versions the pretend cluster serves (`.Capabilities.APIVersions`). */
  apiVersions?: string[];
  /** The pretend cluster's version; v1.31.0 by default. */
  kubeVersion?: string;
}

/** Each layer is a values file path or a values object, later ones winning as with `helm -f`. */
function valueArgs(layers: readonly (string | object)[]): { args: string[]; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-values-'));
  const args = layers.flatMap((layer, i) => {
    if (typeof layer === 'string') return ['-f', layer];
    const file = join(dir, `values-${i}.yaml`);
    writeFileSync(file, stringify(layer));
    return ['-f', file];
  });
  return { args, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `helm template` for the chart: every object it renders, or Helm's error message. */
export function renderChart(layers: readonly (string | object)[] = [], opts: RenderOptions = {}): RenderResult {
  const { args, cleanup } = valueArgs(layers);
  try {
    const r = spawnSync(
      helmRenderBinary(),
      [
        '--name', opts.release ?? 'gh',
        '--namespace', opts.namespace ?? 'mcp',
        ...(opts.apiVersions ?? []).flatMap((v) => ['--api-versions', v]),
        ...(opts.kubeVersion ? ['--kube-version', opts.kubeVersion] : []),
        ...args,
        CHART_DIR,
      ],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) return { ok: false, error: r.stderr.trim() };
    return { ok: true, objects: splitManifests(r.stdout) };
  } finally {
    cleanup();
  }
}

/** The merged values Helm would check against values.schema.json. */
export function mergedValues(layers: readonly (string | object)[] = []): unknown {
  const { args, cleanup } = valueArgs(layers);
  try {
    return JSON.parse(execFileSync(helmRenderBinary(), ['--values-json', ...args, CHART_DIR], { encoding: 'utf8' }));
  } finally {
    cleanup();
  }
}

function splitManifests(text: string): RenderedObject[] {
  return parseAllDocuments(text).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]!.message}`);
    const source = /Source: (\S+)/.exec(doc.commentBefore ?? '')?.[1] ?? '';
    return { source, object: doc.toJS() as KubeObject };
  });
}

/** The one object of `kind` (and `name`, when given); throws when it is not exactly one. */
export function findObject(objects: readonly KubeObject[], kind: string, name?: string): KubeObject {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return found[0]!;
}

/** The rendered objects; throws with Helm's message when the chart refused to render. */
export function expectRendered(result: RenderResult): KubeObject[] {
  if (!result.ok) throw new Error(`the chart did not render: ${result.error}`);
  return result.objects.map((o) => o.object);
}
