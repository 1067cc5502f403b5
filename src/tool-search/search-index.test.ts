import { describe, expect, it } from 'vitest';
import { generatedCatalog } from '../../test/fixtures/generated-catalog.ts';
import { buildSearchIndex, SearchIndex, type IndexedTool, type VisibleSet } from './search-index.ts';
import { stem, terms, words } from './tokenize.ts';

const tool = (upstream: string, original: string, description = '', extra: Record<string, unknown> = {}): IndexedTool => {
  const name = `${upstream}__${original}`;
  return { name, upstream, original, item: { name, description, inputSchema: { type: 'object' }, ...extra } };
};

const generated: IndexedTool[] = generatedCatalog().flatMap((s) => s.tools.map((t) => tool(s.name, t.name, t.description, { title: t.title, inputSchema: t.inputSchema })));
const big = new SearchIndex(generated);
const names = (index: SearchIndex, query: string, limit = 3, visible?: VisibleSet, upstream?: string): string[] =>
  index.search(query, limit, visible, upstream).map((h) => index.tools[h.doc]!.name);

describe('tokenize', () => {
  it('splits identifiers at separators, camelCase, acronyms and digit runs', () => {
    expect(words('getUserById HTTPServer tool42x gmail__create_draft')).toEqual(['get', 'user', 'by', 'id', 'http', 'server', 'tool', '42', 'x', 'gmail', 'create', 'draft']);
    expect(words('Créer un problème')).toEqual(['créer', 'un', 'problème']);
  });

  it('stems plural and verb forms to one term and drops function words', () => {
    expect(new Set(['issue', 'issues'].map(stem)).size).toBe(1);
    expect(new Set(['create', 'creating', 'created'].map(stem)).size).toBe(1);
    expect(new Set(['repository', 'repositories'].map(stem)).size).toBe(1);
    expect(terms('Sends a message to the channel')).toEqual([stem('sends'), stem('message'), stem('channel')]);
  });
});

describe('SearchIndex ranking on the generated 2,000-tool catalog', () => {
  it.each([
    ['create github issue', 'github__create_issue'],
    ['send a slack message', 'slack__send_message'],
    ['delete kubernetes pod', 'kubernetes__delete_pod'],
    ['csv of shopify orders', 'shopify__export_orders'],
    ['permanently remove figma component', 'figma__delete_component'],
  ])('puts the tool an action and object describe first: %s', (query, expected) => {
    expect(names(big, query, 3)[0]).toBe(expected);
  });

  it('a query that is a tool name wins outright, exposed or the upstream\'s own', () => {
    expect(names(big, 'gmail__create_draft', 1)).toEqual(['gmail__create_draft']);
    expect(names(big, 'GMAIL__Create_Draft', 1)).toEqual(['gmail__create_draft']);
    // The upstream's own name is shared by every service that has it: all of them come first.
    expect(names(big, 'create_issue', 3).every((n) => n.endsWith('__create_issue'))).toBe(true);
  });

  it('lifts names that start with the query, and lets a query word match the words it begins', () => {
    expect(names(big, 'cloudflare__create_dns', 1)).toEqual(['cloudflare__create_dns_record']);
    expect(names(big, 'kube create deploy', 1)).toEqual(['kubernetes__create_deployment']);
  });

  it('finds tools by argument name', () => {
    expect(names(big, 'payment_intent', 3)).toContain('stripe__create_refund');
  });

  it('restricts to one upstream when asked', () => {
    const hits = names(big, 'send message', 5, undefined, 'discord');
    expect(hits[0]).toBe('discord__send_message');
    expect(hits.every((n) => n.startsWith('discord__'))).toBe(true);
  });

  it('finds nothing for a query of function words or unknown words only', () => {
    expect(big.search('the of and', 5)).toEqual([]);
    expect(big.search('zzzqqq', 5)).toEqual([]);
  });

  it('breaks ties by catalog order, so equal queries give equal answers', () => {
    const a = new SearchIndex([tool('a', 'x', 'same words'), tool('b', 'y', 'same words')]);
    expect(names(a, 'same words', 2)).toEqual(['a__x', 'b__y']);
  });

  it('builds the same index in slices as at once', async () => {
    const sliced = await buildSearchIndex(generated.slice(0, 300), 7);
    const whole = new SearchIndex(generated.slice(0, 300));
    for (const q of ['create issue', 'list branches', 'github release']) expect(sliced.search(q, 5)).toEqual(whole.search(q, 5));
  });
});

describe('SearchIndex visibility', () => {
  const visibleTools = [tool('v', 'alpha_report', 'alpha'), tool('v', 'beta_report', 'beta')];
  // Hidden tools that all mention "alpha": with frequencies counted over every tool, "alpha"
  // would look common and beta_report would win a query for both words.
  const hidden = Array.from({ length: 50 }, (_, i) => tool('h', `secret_${i}`, 'alpha'));
  const mixed = new SearchIndex([...visibleTools, ...hidden]);
  const mask: VisibleSet = { bits: new Uint8Array(mixed.size), count: 2 };
  mask.bits[0] = 1;
  mask.bits[1] = 1;

  it('never returns a hidden tool, not even for its exact name', () => {
    expect(names(mixed, 'h__secret_3', 10, mask)).toEqual([]);
    expect(names(mixed, 'alpha', 60, mask)).toEqual(['v__alpha_report']);
  });

  it('ranks as if hidden tools did not exist (frequencies over visible tools only)', () => {
    const alone = new SearchIndex(visibleTools);
    const withMask = mixed.search('alpha beta report', 5, mask);
    const without = alone.search('alpha beta report', 5);
    expect(withMask.map((h) => mixed.tools[h.doc]!.name)).toEqual(without.map((h) => alone.tools[h.doc]!.name));
    withMask.forEach((h, i) => expect(h.score).toBeCloseTo(without[i]!.score, 1));
  });
});
