import { describe, expect, it } from 'vitest';
import { compileUriTemplate, matchesUriTemplate } from './uri-template-match.ts';

describe('matchesUriTemplate', () => {
  it('matches a simple variable to exactly one path segment', () => {
    expect(matchesUriTemplate('users://{id}/profile', 'users://42/profile')).toBe(true);
    expect(matchesUriTemplate('users://{id}/profile', 'users://4/2/profile')).toBe(false);
    expect(matchesUriTemplate('users://{id}/profile', 'users:///profile')).toBe(false);
    expect(matchesUriTemplate('users://{id}', 'users://42?x=1')).toBe(false);
  });

  it('lets a reserved expansion span slashes', () => {
    expect(matchesUriTemplate('file:///{+path}', 'file:///a/b/c.txt')).toBe(true);
    expect(matchesUriTemplate('file:///{+path}', 'file:///')).toBe(false);
  });

  it('escapes literal parts so regex metacharacters match only themselves', () => {
    expect(matchesUriTemplate('db://t.x/{id}', 'db://t.x/1')).toBe(true);
    expect(matchesUriTemplate('db://t.x/{id}', 'db://tZx/1')).toBe(false);
    expect(matchesUriTemplate('q://(a)+[b]/{id}', 'q://(a)+[b]/7')).toBe(true);
  });

  it('handles path, query, continuation, label, parameter and fragment operators', () => {
    expect(matchesUriTemplate('repo://r{/owner,name}', 'repo://r/octo/cat')).toBe(true);
    expect(matchesUriTemplate('repo://r{/owner,name}', 'repo://r/octo/cat?x')).toBe(false);
    expect(matchesUriTemplate('search://s{?q,lang}', 'search://s?q=a%20b&lang=en')).toBe(true);
    expect(matchesUriTemplate('search://s{?q}', 'search://s')).toBe(true);
    expect(matchesUriTemplate('search://s?fixed=1{&q}', 'search://s?fixed=1&q=x')).toBe(true);
    expect(matchesUriTemplate('host://x{.dom*}', 'host://x.example.com')).toBe(true);
    expect(matchesUriTemplate('m://p{;a,b}', 'm://p;a=1;b=2')).toBe(true);
    expect(matchesUriTemplate('doc://d{#section}', 'doc://d#intro/part')).toBe(true);
    expect(matchesUriTemplate('doc://d{#section}', 'doc://dx')).toBe(false);
  });

  it('accepts level-4 modifiers', () => {
    expect(matchesUriTemplate('k://{name:3}/{list*}', 'k://abc/x,y')).toBe(true);
  });

  it('never matches a malformed template or a reserved operator', () => {
    expect(compileUriTemplate('a://{x')).toBeUndefined();
    expect(compileUriTemplate('a://x}')).toBeUndefined();
    expect(compileUriTemplate('a://{}')).toBeUndefined();
    expect(compileUriTemplate('a://{=x}')).toBeUndefined();
    expect(compileUriTemplate('a://{x y}')).toBeUndefined();
    expect(matchesUriTemplate('a://{x', 'a://{x')).toBe(false);
  });

  it('matches a template with no expressions literally', () => {
    expect(matchesUriTemplate('config://app', 'config://app')).toBe(true);
    expect(matchesUriTemplate('config://app', 'config://apps')).toBe(false);
  });
});
