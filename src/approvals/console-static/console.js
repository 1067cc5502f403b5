// Gatehouse approvals console. Vanilla JS, no build step, served as a file so the page's
// CSP can forbid inline script. Every value from the server (arguments are attacker-
// controlled) reaches the page through textContent or attributes set as data, never as
// markup. The credential is held and sent by sign-in.js (this tab only, in a header).
// Characters that act instead of showing (controls, bidi overrides that make "\u202Eevil"
// read "live", zero-width and other invisible format characters) are shown as a visible
// ⟨U+XXXX⟩ mark, and their element is flagged; the server lists such fields too. Each refresh
// also loads the user's own upstream connections (connections.js), shown to every signed-in user.
'use strict';

(function () {
  var signIn = window.GatehouseSignIn;
  var POLL_MS = 3000;
  var CSRF_HEADER = 'Gatehouse-Console';
  var CSRF_VALUE = 'decide';
  // Keep in step with src/protocol/hidden-characters.ts; \n and \t stay (the arguments are
  // pretty-printed JSON, where a raw one can only be layout).
  var HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;
  var HIDDEN_NOTE = 'Contains invisible or direction-changing characters, shown as ⟨U+…⟩ marks';

  /** The text with each hidden character as a visible ⟨U+XXXX⟩ mark. */
  function shown(text) {
    return String(text).replace(HIDDEN, function (c) {
      return '⟨U+' + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0') + '⟩';
    });
  }

  var base = location.pathname.replace(/\/+$/, '');
  var el = function (id) { return document.getElementById(id); };
  var items = new Map();
  var clockSkew = 0;
  var pollTimer = null;

  function credential() { return signIn.held(); }

  function authHeaders(extra) { return signIn.headersFor(credential(), extra); }

  function say(message) {
    el('status').textContent = shown(message);
  }

  function alertBox(message) {
    var box = el('alert');
    box.textContent = shown(message || '');
    box.hidden = !message;
  }

  function showLogin(message) {
    signIn.forget();
    if (pollTimer !== null) clearTimeout(pollTimer);
    pollTimer = null;
    items.forEach(function (entry) { entry.node.remove(); });
    items.clear();
    window.GatehouseConnections.clear();
    el('queue').hidden = true;
    el('session').hidden = true;
    el('login').hidden = false;
    say('');
    alertBox(message);
    el('credential').value = '';
    el('credential').focus();
  }

  function showSession(subject) {
    el('login').hidden = true;
    el('queue').hidden = true;
    el('session').hidden = false;
    el('session-subject').textContent = shown(subject);
  }

  function showQueue(subject) {
    showSession(subject);
    el('queue').hidden = false;
  }

  async function readError(response) {
    try {
      var body = await response.json();
      return typeof body.message === 'string' ? body.message : response.statusText;
    } catch (e) {
      return response.statusText;
    }
  }

  /** The queue; undefined when it cannot be loaded now (said in the alert box). */
  async function loadQueue() {
    var response = await fetch(base + '/api/pending', { headers: authHeaders(), cache: 'no-store', credentials: 'omit' });
    if (response.ok) return response.json();
    alertBox('The gateway answered ' + response.status + ': ' + (await readError(response)) + '; retrying.');
    return undefined;
  }

  async function load() {
    if (pollTimer !== null) clearTimeout(pollTimer);
    pollTimer = null;
    if (!credential()) return showLogin('');
    try {
      // Who is signed in, and what they may see: the queue (approvers), their connections.
      var response = await fetch(base + '/api/me', { headers: authHeaders(), cache: 'no-store', credentials: 'omit' });
      if (response.status === 401 || response.status === 400) return showLogin('Sign-in failed (' + response.status + '): ' + (await readError(response)));
      var me = response.ok ? await response.json() : undefined;
      if (me === undefined) alertBox('The gateway answered ' + response.status + ': ' + (await readError(response)) + '; retrying.');
      else if (!me.approver && !me.connections) return showLogin('Access denied (403): ' + me.why + '.');
      else {
        var results = await Promise.all([me.approver ? loadQueue() : null, me.connections ? window.GatehouseConnections.load(authHeaders) : null]);
        var data = results[0];
        var mine = results[1];
        if (mine && mine.state === 'unauthorized') return showLogin('Sign-in failed: ' + mine.message);
        if (data !== undefined) alertBox(mine && mine.state === 'error' ? 'Your connections could not be loaded: ' + mine.message + '; retrying.' : '');
        if (!me.approver) showSession(me.subject);
        else if (data) {
          clockSkew = data.serverTime - Date.now();
          showQueue(data.approver);
          render(data.approvals);
        }
      }
    } catch (e) {
      alertBox('The gateway cannot be reached; retrying.');
    }
    pollTimer = setTimeout(load, POLL_MS);
  }

  function render(approvals) {
    var seen = new Set();
    var list = el('approvals');
    approvals.forEach(function (approval) {
      seen.add(approval.id);
      if (!items.has(approval.id)) {
        var node = card(approval);
        items.set(approval.id, { node: node, approval: approval });
        list.appendChild(node);
      }
    });
    items.forEach(function (entry, id) {
      if (!seen.has(id) && !entry.busy) {
        entry.node.remove();
        items.delete(id);
      }
    });
    updateCount();
    tick();
  }

  function updateCount() {
    el('count').textContent = items.size > 0 ? '(' + items.size + ')' : '';
    el('empty').hidden = items.size > 0;
  }

  function node(tag, className, text) {
    var n = document.createElement(tag);
    if (className) n.className = className;
    if (text !== undefined) {
      var visible = shown(text);
      n.textContent = visible;
      if (visible !== String(text)) {
        n.classList.add('hidden-chars');
        n.title = HIDDEN_NOTE;
      }
    }
    return n;
  }

  function field(dl, label, value, className) {
    dl.appendChild(node('dt', '', label));
    var dd = node('dd', className || '', value);
    dl.appendChild(dd);
    return dd;
  }

  function card(a) {
    var li = node('li', 'card approval');
    li.dataset.id = a.id;
    var titleId = 'approval-' + a.id;
    var article = node('article');
    article.setAttribute('aria-labelledby', titleId);
    var heading = node('h3', 'tool', a.name);
    heading.id = titleId;
    article.appendChild(heading);
    if (a.hiddenCharacters && a.hiddenCharacters.length > 0) {
      article.appendChild(node('p', 'warning', 'Warning: ' + a.hiddenCharacters.join(', ') + ' contain invisible or direction-changing characters (shown as ⟨U+…⟩ marks). Read them carefully.'));
    }

    var dl = node('dl', 'facts');
    var groups = a.principal.groups.length > 0 ? ' (groups: ' + a.principal.groups.join(', ') + ')' : '';
    field(dl, 'Caller', a.principal.subject + groups);
    field(dl, 'Upstream', a.upstream);
    field(dl, 'Upstream tool', a.upstreamName + ' · ' + a.method);
    field(dl, 'Rule', a.ruleId);
    field(dl, 'Requested', new Date(a.createdAt).toLocaleString());
    var countdown = field(dl, 'Expires in', '', 'countdown');
    article.appendChild(dl);

    article.appendChild(node('h4', '', 'Arguments'));
    var pre = node('pre', 'arguments');
    pre.tabIndex = 0;
    pre.setAttribute('aria-label', 'Arguments of ' + shown(a.name));
    pre.appendChild(node('code', '', JSON.stringify(a.arguments, null, 2)));
    article.appendChild(pre);
    article.appendChild(node('p', 'digest', 'Arguments digest: ' + a.argumentsDigest));

    var actions = node('div', 'actions');
    var approve = node('button', 'approve', 'Approve');
    approve.type = 'button';
    approve.setAttribute('aria-label', 'Approve ' + shown(a.name) + ' for ' + shown(a.principal.subject));
    var deny = node('button', 'deny', 'Deny');
    deny.type = 'button';
    deny.setAttribute('aria-label', 'Deny ' + shown(a.name) + ' for ' + shown(a.principal.subject));
    if (a.ownCall) {
      approve.disabled = true;
      actions.appendChild(node('p', 'note', 'Your own call: another approver must approve it.'));
    }
    approve.addEventListener('click', function () { decide(a, 'approve', [approve, deny]); });
    deny.addEventListener('click', function () { decide(a, 'deny', [approve, deny]); });
    actions.appendChild(approve);
    actions.appendChild(deny);
    article.appendChild(actions);
    li.appendChild(article);
    li._countdown = countdown;
    li._buttons = [approve, deny];
    li._expiresAt = a.expiresAt;
    li._ownCall = a.ownCall;
    return li;
  }

  async function decide(a, decision, buttons) {
    var entry = items.get(a.id);
    if (!entry) return;
    entry.busy = true;
    buttons.forEach(function (b) { b.disabled = true; });
    var response;
    try {
      response = await fetch(base + '/' + encodeURIComponent(a.id) + '/decision', {
        method: 'POST',
        headers: authHeaders({ 'Content-Type': 'application/json', [CSRF_HEADER]: CSRF_VALUE }),
        body: JSON.stringify({ decision: decision }),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch (e) {
      entry.busy = false;
      buttons.forEach(function (b) { b.disabled = false; });
      alertBox('The decision could not be sent; try again.');
      return;
    }
    entry.busy = false;
    if (response.status === 401) return showLogin('Your sign-in is no longer valid.');
    if (response.ok || response.status === 409 || response.status === 410 || response.status === 404) {
      var body = await response.json().catch(function () { return {}; });
      var done = response.ok
        ? (decision === 'approve' ? 'Approved ' : 'Denied ') + a.name + ' for ' + a.principal.subject + '.'
        : a.name + ' for ' + a.principal.subject + ': ' + (body.message || 'no longer pending') + '.';
      say(done);
      // Keep keyboard users in the queue: focus moves to the next call, or to the heading.
      var neighbour = entry.node.nextElementSibling || entry.node.previousElementSibling;
      entry.node.remove();
      items.delete(a.id);
      updateCount();
      var target = neighbour ? neighbour.querySelector('button:not([disabled])') : null;
      (target || el('queue-title')).focus();
      return;
    }
    buttons.forEach(function (b) { b.disabled = false; });
    if (entry.node._ownCall) buttons[0].disabled = true;
    alertBox('Not decided (' + response.status + '): ' + (await readError(response)));
  }

  function tick() {
    var now = Date.now() + clockSkew;
    items.forEach(function (entry) {
      var left = Math.max(0, Math.round((entry.node._expiresAt - now) / 1000));
      var text = left === 0 ? 'expired' : Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0');
      if (entry.node._countdown.textContent !== text) entry.node._countdown.textContent = text;
      if (left === 0) entry.node._buttons.forEach(function (b) { b.disabled = true; });
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    window.GatehouseConnections.hook({ say: say, alert: alertBox, signedOut: showLogin });
    el('login-form').addEventListener('submit', function (event) {
      event.preventDefault();
      var value = el('credential').value.trim();
      if (!value) return;
      signIn.keep(value);
      el('credential').value = '';
      say('Signing in…');
      load().then(function () { if (!el('session').hidden) say('Signed in.'); });
    });
    el('sign-out').addEventListener('click', function () { showLogin(''); say('Signed out.'); });
    setInterval(tick, 1000);
    if (credential()) load(); else showLogin('');
  });
})();
