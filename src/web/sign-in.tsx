/**
 * Signing in with a token (`quotient serve --auth tokens:FILE`): a password field whose
 * value is kept for this tab's session only (api.ts `keepToken`), then the page asks again.
 * Shown when the server refused the page for want of an identity.
 */
import { useState } from 'preact/hooks';
import { keepToken } from './api.js';

/** The sign-in form; `onSignedIn` runs once a token is kept. */
export function SignIn({ onSignedIn, refused }: { onSignedIn: () => void; refused: boolean }) {
  const [token, setToken] = useState('');
  return (
    <form
      class="sign-in"
      aria-labelledby="sign-in-title"
      onSubmit={(e) => {
        e.preventDefault();
        const t = token.trim();
        if (t === '') return;
        keepToken(t);
        setToken('');
        onSignedIn();
      }}
    >
      <h2 id="sign-in-title">Sign in</h2>
      {refused ? (
        <p class="error-text" role="alert">
          The server does not know that token.
        </p>
      ) : null}
      <label for="sign-in-token">Access token</label>
      <input id="sign-in-token" type="password" autocomplete="off" spellcheck={false} value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} required />
      <button type="submit">Sign in</button>
      <p class="muted">The token is kept in this tab only, until you close it or sign out; it is sent to this server and nowhere else.</p>
    </form>
  );
}
