// Gatehouse consent link, confirmation page (served at /oauth/connect). Before anything is
// granted, the person proves they are the gateway user the link names: they sign in with their
// gateway credential as on the console (sign-in.js), and this script sends it in a header with
// the link's ticket. The gateway compares who signed in with the user the ticket names (MCP
// 2025-11-25, client/elicitation, URL mode security: the user who opens the URL must be the
// one who triggered it) and only then answers with where to go: the authorization server.
// The credential goes to this gateway only, and is not kept: this page is left right after.
'use strict';

(function () {
  var signIn = window.GatehouseSignIn;
  var el = function (id) { return document.getElementById(id); };

  function alertBox(message) {
    var box = el('alert');
    box.textContent = message || '';
    box.hidden = !message;
  }

  /** The outcome in place of the form: the same text as the gateway's own outcome page. */
  function refused(message) {
    var main = document.querySelector('main');
    while (main.firstChild) main.removeChild(main.firstChild);
    var h1 = document.createElement('h1');
    h1.textContent = 'Not connected';
    var outcome = document.createElement('p');
    outcome.id = 'outcome';
    outcome.textContent = message;
    var note = document.createElement('p');
    note.textContent = 'Nothing was stored. Call the tool again from your client for a new link.';
    main.append(h1, outcome, note);
  }

  async function submit(form) {
    var field = el('credential');
    // A credential this tab already signed in with (the console, in the same tab) does too.
    var credential = field ? field.value.trim() || signIn.held() || '' : '';
    if (field && !credential) return alertBox('Sign in with your gateway API key or token first.');
    alertBox('');
    el('continue').disabled = true;
    var json = { Accept: 'application/json', 'Content-Type': 'application/json' };
    var response;
    try {
      // same-origin credentials: the answer sets this browser's binding cookie for the callback.
      response = await fetch(form.getAttribute('action'), {
        method: 'POST',
        headers: credential ? signIn.headersFor(credential, json) : json,
        body: JSON.stringify({ ticket: form.elements.ticket.value }),
        cache: 'no-store',
        credentials: 'same-origin',
        redirect: 'error',
      });
    } catch (e) {
      el('continue').disabled = false;
      return alertBox('The gateway cannot be reached; try again.');
    }
    var body = await response.json().catch(function () { return {}; });
    if (response.ok && typeof body.location === 'string' && /^https?:/i.test(body.location)) {
      location.assign(body.location);
      return;
    }
    var message = typeof body.message === 'string' ? body.message : 'the gateway answered ' + response.status;
    if (response.status === 401 && field) {
      // A mistyped credential: say so and let the person try again; nothing was started.
      el('continue').disabled = false;
      field.value = '';
      field.focus();
      return alertBox('Sign-in failed: ' + message);
    }
    refused(message);
  }

  document.addEventListener('DOMContentLoaded', function () {
    var form = el('connect-form');
    var field = el('credential');
    if (field && signIn.held()) field.required = false;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      void submit(form);
    });
  });
})();
