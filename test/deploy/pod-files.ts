// What the kubelet gives the gateway's container, made from rendered objects, for tests that
// run the gateway as the chart configures it: the environment (values, the downward API's
// metadata.name, Secret keys) and the volumes (ConfigMap and Secret items as files, emptyDir
// and claims as directories), each mount under `root` + its mountPath. A missing Secret key
// that is not optional fails here as it fails a pod (CreateContainerConfigError).
//
// The gateway reads absolute paths from its config (audit dir, policy dir, key files), and
// a test must not write to /etc or /var/lib, so every string of the config that lies under
// a mountPath is moved under `root` the same way, as a chroot would. Other strings (`/mcp`)
// are left as they are; tests check that the paths the gateway writes lie on a volume.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse, stringify } from 'yaml';
import { findObject, type KubeObject } from './helm-render.ts';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

interface Volume {
  name: string;
  configMap?: { name: string; items?: { key: string; path: string }[] };
  secret?: { secretName: string; items?: { key: string; path: string }[] };
  emptyDir?: object;
  persistentVolumeClaim?: { claimName: string };
}

interface Container {
  args: string[];
  env?: EnvVar[];
  volumeMounts: { name: string; mountPath: string }[];
}

export interface PodFiles {
  env: Record<string, string>;
  /** The container's args, with the --config path moved under root. */
  args: string[];
  /** Where the config file of the pod is, under root. */
  configFile: string;
  /** The config as the pod would read it (before the path move). */
  configText: string;
  mounts: Record<string, string>;
}

function secretData(objects: readonly KubeObject[], name: string): Record<string, string> | undefined {
  const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === name) as
    | (KubeObject & { data?: Record<string, string>; stringData?: Record<string, string> })
    | undefined;
  if (!secret) return undefined;
  const decoded = Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  return { ...decoded, ...(secret.stringData ?? {}) };
}

/**
 * `objects`: the chart's rendered objects plus whatever else the namespace holds (a Secret the
 * values name as existing). `root`: an empty directory standing for the container's root.
 * `claims`: claim name -> directory, so pods of one test can share a PersistentVolumeClaim.
 */
export function layOutPod(objects: readonly KubeObject[], root: string, podName: string, claims: Record<string, string> = {}): PodFiles {
  const deployment = findObject(objects, 'Deployment') as KubeObject & {
    spec: { template: { spec: { containers: Container[]; volumes: Volume[] } } };
  };
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0]!;

  const env: Record<string, string> = {};
  for (const v of container.env ?? []) {
    if (v.value !== undefined) env[v.name] = v.value;
    else if (v.valueFrom?.fieldRef) {
      if (v.valueFrom.fieldRef.fieldPath !== 'metadata.name') throw new Error(`fieldRef ${v.valueFrom.fieldRef.fieldPath} is not simulated`);
      env[v.name] = podName;
    } else if (v.valueFrom?.secretKeyRef) {
      const ref = v.valueFrom.secretKeyRef;
      const value = secretData(objects, ref.name)?.[ref.key];
      if (value !== undefined) env[v.name] = value;
      else if (!ref.optional) throw new Error(`env ${v.name}: Secret ${ref.name} has no key ${ref.key} (the pod would not start)`);
    }
  }

  const mounts: Record<string, string> = {};
  for (const m of container.volumeMounts) {
    const volume = pod.volumes.find((v) => v.name === m.name);
    if (!volume) throw new Error(`volumeMount ${m.name} has no volume`);
    const claim = volume.persistentVolumeClaim?.claimName;
    const dir = claim !== undefined && claims[claim] !== undefined ? claims[claim] : join(root, m.mountPath);
    mkdirSync(dir, { recursive: true });
    mounts[m.mountPath] = dir;
    if (volume.configMap) {
      const cm = findObject(objects, 'ConfigMap', volume.configMap.name) as KubeObject & { data: Record<string, string> };
      writeItems(dir, cm.data, volume.configMap.items, `ConfigMap ${volume.configMap.name}`);
    } else if (volume.secret) {
      const data = secretData(objects, volume.secret.secretName);
      if (!data) throw new Error(`Secret ${volume.secret.secretName} does not exist (the pod would not start)`);
      writeItems(dir, data, volume.secret.items, `Secret ${volume.secret.secretName}`);
    } else if (!volume.emptyDir && !volume.persistentVolumeClaim) {
      throw new Error(`volume ${volume.name}: kind not simulated`);
    }
  }

  const configIndex = container.args.indexOf('--config');
  const podConfigPath = container.args[configIndex + 1];
  if (configIndex === -1 || podConfigPath === undefined) throw new Error('the container args name no --config');
  const configFile = movePath(podConfigPath, mounts);
  const configText = readConfigFrom(objects, podConfigPath, pod.volumes, container.volumeMounts);
  writeFileSync(configFile, stringify(moveStrings(parse(configText), mounts)));
  const args = container.args.map((a, i) => (i === configIndex + 1 ? configFile : a));
  return { env, args, configFile, configText, mounts };
}

function writeItems(dir: string, data: Record<string, string>, items: { key: string; path: string }[] | undefined, what: string): void {
  const list = items ?? Object.keys(data).map((key) => ({ key, path: key }));
  for (const item of list) {
    const text = data[item.key];
    if (text === undefined) throw new Error(`${what} has no key ${item.key}`);
    const file = join(dir, item.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

/** The ConfigMap key mounted at the pod path of the config file. */
function readConfigFrom(objects: readonly KubeObject[], podPath: string, volumes: Volume[], mounts: Container['volumeMounts']): string {
  for (const m of mounts) {
    const volume = volumes.find((v) => v.name === m.name);
    const item = volume?.configMap?.items?.find((i) => join(m.mountPath, i.path) === podPath);
    if (volume?.configMap && item) {
      const cm = findObject(objects, 'ConfigMap', volume.configMap.name) as KubeObject & { data: Record<string, string> };
      return cm.data[item.key]!;
    }
  }
  throw new Error(`no ConfigMap item is mounted at ${podPath}`);
}

/** The mountPath a pod path lies under (the deepest one), if any. */
export function mountOf(podPath: string, mountPaths: readonly string[]): string | undefined {
  return mountPaths.filter((m) => podPath === m || podPath.startsWith(`${m}/`)).sort((a, b) => b.length - a.length)[0];
}

function movePath(podPath: string, mounts: Record<string, string>): string {
  const mountPath = mountOf(podPath, Object.keys(mounts));
  if (mountPath === undefined) throw new Error(`${podPath} is on no volume`);
  return mounts[mountPath]! + podPath.slice(mountPath.length);
}

function moveStrings(value: unknown, mounts: Record<string, string>): unknown {
  if (typeof value === 'string') return mountOf(value, Object.keys(mounts)) === undefined ? value : movePath(value, mounts);
  if (Array.isArray(value)) return value.map((v) => moveStrings(v, mounts));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, moveStrings(v, mounts)]));
  }
  return value;
}
