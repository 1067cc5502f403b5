// The four list methods of MCP and the result field each returns its items in (MCP
// 2026-07-28, server/tools, server/prompts, server/resources). One table for the catalog,
// the method table and the list JSON writer.
export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

export interface ListMethod {
  kind: ListKind;
  method: string;
  /** The result field that carries the items. */
  field: string;
  /** The server capability that announces the list. */
  capability: string;
}

export const LIST_METHODS: Readonly<Record<ListKind, ListMethod>> = {
  tools: { kind: 'tools', method: 'tools/list', field: 'tools', capability: 'tools' },
  prompts: { kind: 'prompts', method: 'prompts/list', field: 'prompts', capability: 'prompts' },
  resources: { kind: 'resources', method: 'resources/list', field: 'resources', capability: 'resources' },
  resourceTemplates: { kind: 'resourceTemplates', method: 'resources/templates/list', field: 'resourceTemplates', capability: 'resources' },
};

/** The list method a JSON-RPC method name is, if it is one. */
export const LIST_METHOD_BY_NAME: ReadonlyMap<string, ListMethod> = new Map(Object.values(LIST_METHODS).map((m) => [m.method, m]));
