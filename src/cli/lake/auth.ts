// zlake auth: the reference's `zed auth` commands. login runs the OAuth
// device authorization flow against the Auth0 tenant the lake names at
// /auth/method and stores the tokens in <configdir>/credentials.json;
// logout removes them; method and verify print what the lake says (its
// method, and who it takes us for); store (hidden, for tests and
// scripts) stores a raw access token. Every other lake command sends the
// stored token and refreshes it when the lake refuses it (src/client).

import { spawn } from 'node:child_process';
import { Auth0Client, AuthMethod, Tokens, ZERO_TIME } from '../../client';
import { goJSON } from '../../service/errors';
import { CommandIO, LakeCommand, runSubcommand } from './command';

/** What the reference prints: Go's indented JSON (tabs, <>& escaped). */
function printJSON(io: CommandIO, v: unknown): void {
  io.stdout.write(goJSON(v, '\t'));
}

function noArgs(name: string, args: string[]): void {
  if (args.length > 0) throw new Error(`${name} command takes no arguments`);
}

/**
 * Opens a URL in the user's browser, as the reference's login does; a
 * failure (no browser, no display) is ignored: the URL is printed too.
 */
function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no browser here
  }
}

const login: LakeCommand = {
  name: 'auth login',
  usage: 'auth login',
  short: 'log in to Zed lake service and save credentials',
  long: `
Logs in to the lake service (-lake, or ZED_LAKE) with the OAuth device
authorization flow: prints a URL and a code to confirm in a browser (and
opens the browser unless -launchbrowser=false), waits for the login to
complete, then stores the tokens in the credentials file of -configdir.
`,
  setup(fs, lake, io) {
    const launch = fs.bool('launchbrowser', true, 'automatically launch browser for verification');
    return async (args) => {
      noArgs('login', args);
      const client = await lake.connect();
      let method: AuthMethod;
      try {
        method = await client.authMethod();
      } catch (e) {
        throw new Error(`failed to obtain authentication method: ${(e as Error).message}`, {
          cause: e,
        });
      }
      if (method.kind === '') {
        throw new Error(`Zed lake service at ${lake.lake} does not support authentication`);
      }
      if (method.kind !== 'auth0' || !method.auth0) {
        throw new Error(
          `Zed lake service at ${lake.lake} requires unknown authentication method ${method.kind}`,
        );
      }
      const details = method.auth0;
      // The reference labels the client ID "method".
      io.stdout.write(`method ${details.client_id}\n`);
      io.stdout.write(`domain ${details.domain}\n`);
      io.stdout.write(`audience ${details.audience}\n`);
      const auth0 = new Auth0Client(details);
      const dcr = await auth0.deviceCode('openid email profile offline_access');
      io.stdout.write(`Complete authentication at ${dcr.verification_uri_complete}\n`);
      io.stdout.write(`Verification code: ${dcr.user_code}\n`);
      if (launch.value) openBrowser(dcr.verification_uri_complete);
      const stop = new AbortController();
      const onSignal = () => stop.abort(new Error('context canceled'));
      process.once('SIGINT', onSignal);
      let tokens: Tokens;
      try {
        tokens = await auth0.pollDeviceCodeTokens(dcr, stop.signal);
      } finally {
        process.off('SIGINT', onSignal);
      }
      try {
        lake.authStore().setTokens(lake.lake, tokens);
      } catch (e) {
        throw new Error(`failed to save credentials file: ${(e as Error).message}`, { cause: e });
      }
      io.stdout.write(`Login successful, stored credentials for ${lake.lake}\n`);
    };
  },
};

const logout: LakeCommand = {
  name: 'auth logout',
  usage: 'auth logout',
  short: 'remove saved credentials for a Zed lake service',
  long: `
Removes the tokens stored for the lake service (-lake, or ZED_LAKE) from
the credentials file of -configdir.
`,
  setup(_fs, lake) {
    return async (args) => {
      // Checks the lake is a service, as the reference does first.
      await lake.connect();
      noArgs('logout', args);
      try {
        lake.authStore().removeTokens(lake.lake);
      } catch (e) {
        throw new Error(`failed to save credentials file: ${(e as Error).message}`, { cause: e });
      }
    };
  },
};

const method: LakeCommand = {
  name: 'auth method',
  usage: 'auth method',
  short: 'display authentication method supported by Zed lake service',
  long: `
Prints the lake service's authentication method as JSON: kind "" when it
needs none, "auth0" with the audience, client ID and domain to log in with.
`,
  setup(_fs, lake, io) {
    return async (args) => {
      noArgs('method', args);
      const m = await (await lake.connect()).authMethod();
      // Go's field order; auth0 is left out when there is none.
      const out: Record<string, unknown> = { kind: m.kind };
      if (m.auth0) {
        out.auth0 = {
          audience: m.auth0.audience,
          client_id: m.auth0.client_id,
          domain: m.auth0.domain,
        };
      }
      printJSON(io, out);
    };
  },
};

const store: LakeCommand = {
  name: 'auth store',
  usage: 'auth store',
  short: 'store raw tokens',
  long: `
Stores an access token given with -access for the lake service (-lake, or
ZED_LAKE) in the credentials file of -configdir, keeping any refresh token
stored with it.
`,
  setup(fs, lake) {
    const access = fs.string('access', '', 'raw access token as string');
    return async (args) => {
      noArgs('store', args);
      await lake.connect();
      const s = lake.authStore();
      let tokens: Tokens | undefined;
      try {
        tokens = s.tokens(lake.lake);
      } catch (e) {
        throw new Error(`failed to load authentication store: ${(e as Error).message}`, {
          cause: e,
        });
      }
      tokens ??= { access: '', expiration: ZERO_TIME, id: '', refresh: '' };
      tokens.access = access.value;
      try {
        s.setTokens(lake.lake, tokens);
      } catch (e) {
        throw new Error(`failed to update authentication: ${(e as Error).message}`, { cause: e });
      }
    };
  },
};

const verify: LakeCommand = {
  name: 'auth verify',
  usage: 'auth verify',
  short: 'verify authentication credentials',
  long: `
Asks the lake service (-lake, or ZED_LAKE) who it takes the stored
credentials for and prints its answer (tenant and user IDs) as JSON.
`,
  setup(_fs, lake, io) {
    return async (args) => {
      noArgs('verify', args);
      const ident = await (await lake.connect()).authIdentity();
      printJSON(io, { tenant_id: ident.tenant_id, user_id: ident.user_id });
    };
  },
};

const subcommands: Record<string, LakeCommand> = { login, logout, method, store, verify };

export const auth: LakeCommand = {
  name: 'auth',
  usage: 'auth [subcommand]',
  short: 'authentication and authorization commands',
  long: `
Logs in to a lake service that requires authentication ("zlake auth
login"), removes the stored credentials ("logout"), shows the service's
method ("method") and checks the credentials ("verify"). Credentials are
kept per lake in credentials.json in -configdir (~/.zed by default).
`,
  setup(_fs, lake, io: CommandIO) {
    // store is for tests and scripts: left out of the list, as the reference hides it.
    return (args) => runSubcommand('auth', subcommands, args, lake, io, ['store']);
  },
};
