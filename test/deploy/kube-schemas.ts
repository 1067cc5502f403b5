// Checks rendered objects against the Kubernetes API, two ways, both from the kubernetes-models
// packages (models generated from the Kubernetes OpenAPI spec, Gateway API and Prometheus
// Operator CRDs):
// 1. each model's JSON Schema validation: types, required fields, enums, formats;
// 2. its TypeScript declarations, with the objects as object literals: TypeScript's excess
//    property check finds the fields the API does not have (a `readOnlyRootFileSystem` typo),
//    which the OpenAPI schemas let through and an API server would drop (or refuse, with
//    strict field validation).
import path from 'node:path';
import ts from 'typescript';
import { ConfigMap, PersistentVolumeClaim, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { HTTPRoute } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { REPO_ROOT, type KubeObject } from './helm-render.ts';

interface Model {
  validate(): void;
}

/** apiVersion/kind -> the model class, and the module and interface that declare its type. */
const MODELS: Record<string, { make: (o: object) => Model; module: string; type: string }> = {
  'v1/ConfigMap': { make: (o) => new ConfigMap(o), module: 'kubernetes-models/v1', type: 'IConfigMap' },
  'v1/Secret': { make: (o) => new Secret(o), module: 'kubernetes-models/v1', type: 'ISecret' },
  'v1/Service': { make: (o) => new Service(o as never), module: 'kubernetes-models/v1', type: 'IService' },
  'v1/ServiceAccount': { make: (o) => new ServiceAccount(o), module: 'kubernetes-models/v1', type: 'IServiceAccount' },
  'v1/PersistentVolumeClaim': { make: (o) => new PersistentVolumeClaim(o as never), module: 'kubernetes-models/v1', type: 'IPersistentVolumeClaim' },
  'apps/v1/Deployment': { make: (o) => new Deployment(o as never), module: 'kubernetes-models/apps/v1', type: 'IDeployment' },
  'autoscaling/v2/HorizontalPodAutoscaler': { make: (o) => new HorizontalPodAutoscaler(o as never), module: 'kubernetes-models/autoscaling/v2', type: 'IHorizontalPodAutoscaler' },
  'policy/v1/PodDisruptionBudget': { make: (o) => new PodDisruptionBudget(o as never), module: 'kubernetes-models/policy/v1', type: 'IPodDisruptionBudget' },
  'networking.k8s.io/v1/Ingress': { make: (o) => new Ingress(o as never), module: 'kubernetes-models/networking.k8s.io/v1', type: 'IIngress' },
  'networking.k8s.io/v1/NetworkPolicy': { make: (o) => new NetworkPolicy(o as never), module: 'kubernetes-models/networking.k8s.io/v1', type: 'INetworkPolicy' },
  'gateway.networking.k8s.io/v1/HTTPRoute': {
    make: (o) => new HTTPRoute(o as never),
    module: '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1',
    type: 'IHTTPRoute',
  },
  'monitoring.coreos.com/v1/ServiceMonitor': {
    make: (o) => new ServiceMonitor(o as never),
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
    type: 'IServiceMonitor',
  },
};

function modelOf(o: KubeObject): (typeof MODELS)[string] {
  const model = MODELS[`${o.apiVersion}/${o.kind}`];
  if (!model) throw new Error(`no Kubernetes model for ${o.apiVersion} ${o.kind}: add it to test/deploy/kube-schemas.ts`);
  return model;
}

/** Problems of the objects against the API's JSON Schemas, as "Kind/name: message". */
export function schemaProblems(objects: readonly KubeObject[]): string[] {
  return objects.flatMap((o) => {
    try {
      modelOf(o).make(structuredClone(o)).validate();
      return [];
    } catch (e) {
      return [`${o.kind}/${o.metadata.name}: ${(e as Error).message}`];
    }
  });
}

// The in-memory source lives beside this file so that module resolution finds node_modules.
const VIRTUAL_FILE = path.join(REPO_ROOT, 'test/deploy/rendered-objects.virtual.ts');

/** Problems of the objects against the API's TypeScript types (unknown fields, wrong types). */
export function typeProblems(objects: readonly KubeObject[]): string[] {
  const imports = new Map<string, Set<string>>();
  const lines: string[] = [];
  const owner: string[] = [];
  objects.forEach((o, i) => {
    const { module, type } = modelOf(o);
    if (!imports.has(module)) imports.set(module, new Set());
    imports.get(module)!.add(type);
    // One line per object, so a diagnostic's line names the object.
    lines.push(`export const o${i}: ${type} = ${JSON.stringify(o)};`);
    owner.push(`${o.kind}/${o.metadata.name}`);
  });
  const header = [...imports].map(([module, types]) => `import type { ${[...types].join(', ')} } from '${module}';`);
  const source = [...header, ...lines].join('\n');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (file) => (file === VIRTUAL_FILE ? source : readFile(file));
  host.fileExists = ((exists) => (file: string) => file === VIRTUAL_FILE || exists(file))(host.fileExists.bind(host));
  host.getSourceFile = (file, version, ...rest) =>
    file === VIRTUAL_FILE ? ts.createSourceFile(file, source, version) : getSourceFile(file, version, ...rest);
  const program = ts.createProgram([VIRTUAL_FILE], options, host);
  const diagnostics = [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics(program.getSourceFile(VIRTUAL_FILE))];
  return diagnostics.map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (d.file?.fileName !== VIRTUAL_FILE || d.start === undefined) return message;
    const line = d.file.getLineAndCharacterOfPosition(d.start).line - header.length;
    return `${owner[line] ?? 'imports'}: ${message}`;
  });
}
