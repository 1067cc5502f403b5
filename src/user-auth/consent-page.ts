// The small pages a person sees in their browser during a consent: the confirmation (which
// gateway user the link belongs to and which upstream it connects, and a sign-in with the
// gateway credential that proves the person is that user before anything is granted) and the
// outcome. Markup with every value escaped; the only script is the gateway's own file
// (consent.js, with the console's sign-in.js), under a CSP that allows no other.

const escape = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`;

/** `verify`: ask for the gateway credential (userAuth.verifyConsentUser). Script paths are
 * relative to the page's own path, so a gateway under a path prefix serves them too. */
export function confirmPage(p: { upstream: string; subject: string; ticket: string; action: string; verify: boolean }): string {
  const signIn = p.verify
    ? '<p>Sign in with your gateway API key or token: the gateway checks that you are this user, so a link someone else sent you cannot connect your account to theirs.</p>' +
      '<label for="credential">API key or token</label> <input id="credential" name="credential" type="password" required autocomplete="off" spellcheck="false"> '
    : '<p>Continue only if that is you and you asked for this. Someone who sent you this link would otherwise act with your account.</p>';
  return page(
    `Connect ${p.upstream}`,
    `<p>Gatehouse will connect your account at <strong>${escape(p.upstream)}</strong> for the gateway user <strong id="subject">${escape(p.subject)}</strong>.</p>` +
      `<form id="connect-form" method="post" action="${escape(p.action)}"><input type="hidden" name="ticket" value="${escape(p.ticket)}">${signIn}<button type="submit" id="continue">Continue to sign in</button></form>` +
      '<p id="alert" role="alert" hidden></p><noscript><p>This page needs JavaScript.</p></noscript>' +
      '<script src="assets/sign-in.js" defer></script><script src="assets/consent.js" defer></script>',
  );
}

export function donePage(upstream: string, subject: string): string {
  return page('Connected', `<p id="outcome">Your account at <strong>${escape(upstream)}</strong> is connected for <strong>${escape(subject)}</strong>. You can close this page and go back to your client.</p>`);
}

export function failedPage(reason: string): string {
  return page('Not connected', `<p id="outcome">${escape(reason)}</p><p>Nothing was stored. Call the tool again from your client for a new link.</p>`);
}
