// Gatehouse sign-in in the browser, shared by the approvals console (console.js) and the
// consent link's confirmation page (consent.js): how a pasted gateway credential (an API key
// or a bearer token) is held and sent. It is kept in sessionStorage (this tab only, never a
// cookie, so no other site can make the browser send it) and travels in a header.
'use strict';

(function () {
  var STORAGE_KEY = 'gatehouse.approvals.credential';
  var B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

  /** The request headers that present `credential`, with `extra` added. */
  function headersFor(credential, extra) {
    var headers = Object.assign({ Accept: 'application/json' }, extra || {});
    // Bearer when the value is a token68 (RFC 6750); other API keys go in X-API-Key.
    if (B64TOKEN.test(credential)) headers.Authorization = 'Bearer ' + credential;
    else headers['X-API-Key'] = credential;
    return headers;
  }

  window.GatehouseSignIn = {
    headersFor: headersFor,
    /** The credential this tab signed in with, or null. */
    held: function () { return sessionStorage.getItem(STORAGE_KEY); },
    keep: function (credential) { sessionStorage.setItem(STORAGE_KEY, credential); },
    forget: function () { sessionStorage.removeItem(STORAGE_KEY); },
  };
})();
