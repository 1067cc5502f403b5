// The two small pages a person sees in their browser during a consent: the confirmation
// (which gateway identity the link belongs to and which upstream it connects, so a link sent
// by someone else is recognised before anything is granted) and the outcome. Static markup
// with every value escaped, no script; the routes send them under a CSP that allows none.

const escape = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`;

export function confirmPage(p: { upstream: string; subject: string; ticket: string; action: string }): string {
  return page(
    `Connect ${p.upstream}`,
    `<p>Gatehouse will connect your account at <strong>${escape(p.upstream)}</strong> for the gateway user <strong id="subject">${escape(p.subject)}</strong>.</p>` +
      '<p>Continue only if that is you and you asked for this. Someone who sent you this link would otherwise act with your account.</p>' +
      `<form method="post" action="${escape(p.action)}"><input type="hidden" name="ticket" value="${escape(p.ticket)}"><button type="submit" id="continue">Continue to sign in</button></form>`,
  );
}

export function donePage(upstream: string, subject: string): string {
  return page('Connected', `<p id="outcome">Your account at <strong>${escape(upstream)}</strong> is connected for <strong>${escape(subject)}</strong>. You can close this page and go back to your client.</p>`);
}

export function failedPage(reason: string): string {
  return page('Not connected', `<p id="outcome">${escape(reason)}</p><p>Nothing was stored. Call the tool again from your client for a new link.</p>`);
}
