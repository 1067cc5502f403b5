// Gatehouse console: the signed-in user's own upstream connections (per-user authorization).
// For each upstream reached with the user's own account it shows either a Connect link (a
// fresh, sealed, expiring consent link from GET /oauth/connections, which names this user) or
// the connection with a Disconnect button (DELETE /oauth/connections/:upstream). The gateway
// answers with the caller's own connections only; this page never asks for anyone else's.
// Like console.js: no markup from data (textContent and attributes only), the credential in a
// header, never a cookie. console.js signs in and calls load() on each refresh.
'use strict';

(function () {
  var CSRF_HEADER = 'Gatehouse-Console';
  var CSRF_VALUE = 'disconnect';
  // The console lives at <root>/approvals; the connection routes at <root>/oauth.
  var root = location.pathname.replace(/\/+$/, '').replace(/\/approvals$/, '');
  var rows = new Map();
  var headersOf = null;
  var hooks = { say: function () {}, alert: function () {}, signedOut: function () {} };

  var el = function (id) { return document.getElementById(id); };

  function node(tag, className, text) {
    var n = document.createElement(tag);
    if (className) n.className = className;
    if (text !== undefined) n.textContent = String(text);
    return n;
  }

  /** Only an absolute http(s) URL becomes a link: never javascript: or data:. */
  function safeLink(value) {
    try {
      var url = new URL(String(value), location.href);
      return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
    } catch (e) {
      return null;
    }
  }

  function clear() {
    rows.forEach(function (row) { row.node.remove(); });
    rows.clear();
    el('connections').hidden = true;
  }

  function stateText(c) {
    var until = new Date(c.expiresAt).toLocaleString();
    return c.refreshable ? 'Connected; renewed automatically (current token until ' + until + ')' : 'Connected until ' + until;
  }

  function connectedRow(c) {
    var li = node('li', 'card connection');
    li.dataset.upstream = c.upstream;
    li.dataset.state = 'connected';
    li.appendChild(node('span', 'upstream', c.upstream));
    li.appendChild(node('span', 'state', stateText(c)));
    var button = node('button', 'quiet', 'Disconnect');
    button.type = 'button';
    button.setAttribute('aria-label', 'Disconnect ' + c.upstream);
    button.addEventListener('click', function () { disconnect(c.upstream, button); });
    li.appendChild(button);
    return li;
  }

  function pendingRow(p) {
    var li = node('li', 'card connection');
    li.dataset.upstream = p.upstream;
    li.dataset.state = 'pending';
    li.appendChild(node('span', 'upstream', p.upstream));
    li.appendChild(node('span', 'state', 'Not connected'));
    var a = node('a', 'connect', 'Connect');
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    a.setAttribute('aria-label', 'Connect ' + p.upstream);
    li.appendChild(a);
    return li;
  }

  function render(data) {
    var list = el('connection-list');
    var seen = new Set();
    var entries = data.connections.map(function (c) { return { key: c.upstream, state: 'connected', item: c }; })
      .concat(data.pending.map(function (p) { return { key: p.upstream, state: 'pending', item: p }; }));
    entries.sort(function (a, b) { return a.key < b.key ? -1 : a.key > b.key ? 1 : 0; });
    entries.forEach(function (e) {
      seen.add(e.key);
      var row = rows.get(e.key);
      if (!row || row.state !== e.state) {
        var fresh = e.state === 'connected' ? connectedRow(e.item) : pendingRow(e.item);
        if (row) row.node.replaceWith(fresh); else list.appendChild(fresh);
        row = { node: fresh, state: e.state };
        rows.set(e.key, row);
      } else if (e.state === 'connected') {
        row.node.querySelector('.state').textContent = stateText(e.item);
      }
      if (e.state === 'pending') {
        // The same element each refresh, with the newest link: a click never races a rebuild.
        var link = safeLink(e.item.connect);
        var a = row.node.querySelector('a.connect');
        if (link) a.href = link; else a.removeAttribute('href');
      }
    });
    rows.forEach(function (row, key) {
      if (!seen.has(key)) {
        row.node.remove();
        rows.delete(key);
      }
    });
    el('connections').hidden = rows.size === 0;
  }

  /** 'shown' | 'absent' (no per-user upstreams here) | 'unauthorized' | 'error'. */
  async function load(headers) {
    headersOf = headers;
    var response;
    try {
      response = await fetch(root + '/oauth/connections', { headers: headers(), cache: 'no-store', credentials: 'omit' });
    } catch (e) {
      return { state: 'error', message: 'the gateway cannot be reached' };
    }
    if (response.status === 404) {
      clear();
      return { state: 'absent' };
    }
    if (response.status === 401 || response.status === 400) return { state: 'unauthorized', message: await messageOf(response) };
    if (!response.ok) return { state: 'error', message: 'the gateway answered ' + response.status };
    var data = await response.json().catch(function () { return null; });
    if (!data || !Array.isArray(data.connections) || !Array.isArray(data.pending)) return { state: 'error', message: 'unexpected answer from the gateway' };
    render(data);
    return { state: rows.size > 0 ? 'shown' : 'absent', subject: String(data.subject) };
  }

  async function messageOf(response) {
    try {
      var body = await response.json();
      return typeof body.message === 'string' ? body.message : response.statusText;
    } catch (e) {
      return response.statusText;
    }
  }

  async function disconnect(upstream, button) {
    if (!headersOf) return;
    button.disabled = true;
    var extra = {};
    extra[CSRF_HEADER] = CSRF_VALUE;
    var response;
    try {
      response = await fetch(root + '/oauth/connections/' + encodeURIComponent(upstream), { method: 'DELETE', headers: headersOf(extra), cache: 'no-store', credentials: 'omit' });
    } catch (e) {
      button.disabled = false;
      hooks.alert('The disconnect could not be sent; try again.');
      return;
    }
    if (response.status === 401) return hooks.signedOut('Your sign-in is no longer valid.');
    if (!response.ok) {
      button.disabled = false;
      hooks.alert('Not disconnected (' + response.status + '): ' + (await messageOf(response)));
      return;
    }
    hooks.say('Disconnected ' + upstream + '.');
    await load(headersOf);
  }

  window.GatehouseConnections = {
    load: load,
    clear: clear,
    /** console.js's status line, alert box and sign-out. */
    hook: function (h) { hooks = h; },
  };
})();
