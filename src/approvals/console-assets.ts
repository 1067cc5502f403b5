// The console's page, script and style, read once at import (boot) from console-static/ and
// served as they are: no build step, no templating. The HTML carries no data, so nothing
// attacker-controlled is ever part of markup; the script renders data with textContent.
import { readFileSync } from 'node:fs';

const read = (name: string): string => readFileSync(new URL(`./console-static/${name}`, import.meta.url), 'utf8');

export const CONSOLE_HTML = read('console.html');
export const CONSOLE_JS = read('console.js');
export const CONNECTIONS_JS = read('connections.js');
export const CONSOLE_CSS = read('console.css');
export const CONSOLE_ICON = read('favicon.svg');
/** Shared with the consent link's confirmation page (user-auth/user-auth-routes.ts). */
export const SIGN_IN_JS = read('sign-in.js');
export const CONSENT_JS = read('consent.js');
