// No promise in src/ is left to reject unseen. Node ends the process on an unhandled
// rejection, so a promise started and not awaited (`void p`, or `p;` on its own) must say
// what happens when it rejects: `.catch(handler)` or `.then(onFulfilled, onRejected)` at
// the end of that expression. `finally` is not enough: it passes the rejection on. Found
// with the TypeScript checker (a promise is anything with a callable `then`), so a call
// that only returns a promise through an alias or a method is found too.
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/gateway.ts';

function sourceFiles(): { program: ts.Program; files: ts.SourceFile[] } {
  const configPath = join(REPO_ROOT, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent({ ...read.config, include: ['src'] }, ts.sys, REPO_ROOT);
  const roots = parsed.fileNames.filter((f) => !f.endsWith('.test.ts'));
  const program = ts.createProgram(roots, parsed.options);
  const srcDir = join(REPO_ROOT, 'src');
  return { program, files: program.getSourceFiles().filter((f) => f.fileName.startsWith(srcDir) && !f.fileName.endsWith('.test.ts')) };
}

function isThenable(checker: ts.TypeChecker, node: ts.Node): boolean {
  const type = checker.getTypeAtLocation(node);
  const parts = type.isUnion() ? type.types : [type];
  return parts.some((t) => {
    const then = t.getProperty('then');
    return then !== undefined && checker.getTypeOfSymbolAtLocation(then, node).getCallSignatures().length > 0;
  });
}

/** `p.catch(f)` or `p.then(f, g)`: the rejection has a handler. */
function handlesRejection(node: ts.Expression): boolean {
  let e = node;
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  if (!ts.isCallExpression(e) || !ts.isPropertyAccessExpression(e.expression)) return false;
  const name = e.expression.name.text;
  return (name === 'catch' && e.arguments.length >= 1) || (name === 'then' && e.arguments.length >= 2);
}

function returnsPromiseToVoid(checker: ts.TypeChecker, fn: ts.ArrowFunction | ts.FunctionExpression): boolean {
  const contextual = checker.getContextualType(fn);
  if (!contextual) return false;
  const expected = contextual.getCallSignatures();
  if (expected.length === 0 || !expected.every((sig) => (checker.getReturnTypeOfSignature(sig).flags & ts.TypeFlags.Void) !== 0)) return false;
  const own = checker.getSignatureFromDeclaration(fn);
  if (!own) return false;
  const returned = checker.getReturnTypeOfSignature(own);
  return returned.getProperty('then') !== undefined;
}

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

function floatingPromises(): string[] {
  const { program, files } = sourceFiles();
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const file of files) {
    const visit = (node: ts.Node): void => {
      const discarded = ts.isVoidExpression(node) ? node.expression : ts.isExpressionStatement(node) ? node.expression : undefined;
      // An assignment keeps the promise (`this.flight = p`): whoever awaits it handles it.
      const kept = discarded !== undefined && ts.isBinaryExpression(discarded) && isAssignment(discarded.operatorToken.kind);
      if (discarded && !kept && !ts.isVoidExpression(discarded) && !ts.isAwaitExpression(discarded) && isThenable(checker, discarded) && !handlesRejection(discarded)) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${file.fileName.slice(REPO_ROOT.length)}:${line + 1}: ${node.getText().split('\n')[0]!.slice(0, 100)}`);
      }
      // A promise-returning callback where the caller expects void (an event listener, a
      // timer): the caller drops the promise, so nobody would hear it reject.
      if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && returnsPromiseToVoid(checker, node)) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${file.fileName.slice(REPO_ROOT.length)}:${line + 1}: promise-returning callback where void is expected: ${node.getText().split('\n')[0]!.slice(0, 80)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

describe('promises in src/', () => {
  it('are awaited, returned, or end in a rejection handler', () => {
    expect(floatingPromises()).toEqual([]);
  });
});
