// A real headless Chromium (Debian's `chromium`, driven by playwright-core) that completes a
// per-user consent as a person would: opens the consent link, signs in on the gateway's
// confirmation page with their gateway credential (the proof that they are the user the link
// names), signs in on the authorization server's login page as `login`, grants on its consent
// page, and reads the gateway's outcome page. One browser context per person, so their cookies
// (the authorization server's session, the gateway's binding cookie) are their own.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

export interface ConsentBrowser {
  /** A person with their own cookies, who signs in to the gateway with `gatewayKey` (their
   * API key); undefined: a person with no gateway credential, who cannot get past the
   * confirmation page (or a gateway with verifyConsentUser off). */
  person(gatewayKey: string | undefined): Promise<Person>;
  close(): Promise<void>;
}

export interface Person {
  /** Completes the consent behind `link`; the gateway's outcome text. */
  consent(link: string, login: string): Promise<string>;
  /** Opens `url` and returns the outcome text of the page it lands on (for tampered links). */
  open(url: string): Promise<string>;
  /** Runs the consent up to the authorization server's redirect back and returns that callback URL unopened. */
  callbackUrl(link: string, login: string): Promise<string>;
  /** Completes the consent from a confirmation page already open in `page` (a link the person clicked). */
  consentOn(page: Page, login: string): Promise<string>;
  context: BrowserContext;
}

/** From a consent link's confirmation page in `page` to the gateway's outcome page. */
async function walk(page: Page, login: string, gatewayKey: string | undefined): Promise<string> {
  const field = page.locator('#credential');
  if (gatewayKey !== undefined) await field.fill(gatewayKey);
  await page.click('#continue');
  // The authorization server asks for a login unless this browser has a session there,
  // and for consent on the first grant to this client.
  const done = page.locator('#outcome');
  const grant = page.locator('form button.login-submit');
  const loginField = page.locator('input[name="login"]');
  // The confirmation page's alert: the gateway refused the sign-in, the person may try again.
  const alert = page.locator('#alert:not([hidden])');
  await loginField.or(done).or(alert).first().waitFor({ timeout: 15_000 }).catch(async (e: unknown) => {
    throw new Error(`no login page at ${page.url()}: ${(await page.locator('body').textContent().catch(() => ''))?.slice(0, 300)} (${(e as Error).message.split('\n')[0]})`);
  });
  if (await alert.isVisible().catch(() => false)) return (await alert.textContent()) ?? '';
  if (await loginField.isVisible().catch(() => false)) {
    await loginField.fill(login);
    await page.fill('input[name="password"]', 'any');
    await page.click('button.login-submit');
    await done.or(grant).first().waitFor();
  }
  if (await grant.isVisible().catch(() => false)) await grant.click();
  await done.waitFor();
  return (await done.textContent()) ?? '';
}

/** `trustAnyCertificate`: for a gateway behind a TLS front with a certificate made in the test. */
export async function launchConsentBrowser(o: { trustAnyCertificate?: boolean } = {}): Promise<ConsentBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}: run \`apt-get install -y chromium\` (.ci/run installs it). This test must not be skipped.`);
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    async person(gatewayKey) {
      const context = await browser.newContext(o.trustAnyCertificate ? { ignoreHTTPSErrors: true } : {});
      const signIn = async (link: string, login: string, stopAtCallback: boolean): Promise<string> => {
        const page = await context.newPage();
        let caught: ((url: string) => void) | undefined;
        const callback = new Promise<string>((r) => (caught = r));
        if (stopAtCallback) {
          // Through CDP: playwright's own routing does not see requests that follow a redirect,
          // and the callback is reached by the authorization server's redirect.
          const cdp = await context.newCDPSession(page);
          cdp.on('Fetch.requestPaused', (ev: { requestId: string; request: { url: string } }) => {
            caught?.(ev.request.url);
            void cdp.send('Fetch.fulfillRequest', { requestId: ev.requestId, responseCode: 200, responseHeaders: [{ name: 'content-type', value: 'text/html' }], body: Buffer.from('<p id="outcome">held</p>').toString('base64') });
          });
          await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*/oauth/callback?*', requestStage: 'Request' }] });
        }
        await page.goto(link);
        const outcome = await walk(page, login, gatewayKey);
        const text = stopAtCallback ? await callback : outcome;
        await page.close();
        return text;
      };
      return {
        context,
        consent: (link, login) => signIn(link, login, false),
        callbackUrl: (link, login) => signIn(link, login, true),
        consentOn: (page, login) => walk(page, login, gatewayKey),
        async open(url) {
          const page = await context.newPage();
          await page.goto(url);
          const text = await page.locator('#outcome').textContent();
          await page.close();
          return text ?? '';
        },
      };
    },
    close: () => browser.close(),
  };
}
