// Module resolve hook (node:module register): the conformance suite's imports of "fs" get
// fs-with-glob.mjs, which is fs plus globSync. Other modules keep Node's own fs.
const SHIM = new URL('./fs-with-glob.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  const fromSuite = context.parentURL?.includes('/conformance-') && context.parentURL.includes('/node_modules/');
  if (fromSuite && (specifier === 'fs' || specifier === 'node:fs')) return { url: SHIM, shortCircuit: true };
  return next(specifier, context);
}
