/**
 * The account pages as server-rendered HTML: plain forms, no framework. Everything interpolated is
 * escaped; the one script (the copy button) and the stylesheet are inline and allowed by their hashes in
 * the Content-Security-Policy, which otherwise allows nothing beyond this origin's forms.
 */
import { createHash } from 'node:crypto';
import type { Account } from '../state/credentials/account-store.js';
import type { OwnedKey } from '../state/credentials/key-store.js';

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem}
label{display:block;margin-top:.8rem;font-weight:600}
input{font:inherit;padding:.4rem;width:100%;max-width:24rem;box-sizing:border-box}
button{font:inherit;padding:.4rem 1rem;margin-top:.8rem;cursor:pointer}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #ddd}
td button{margin:0}
.notice{background:#eef6ff;border:1px solid #9cc3ff;padding:.6rem .8rem}
.error{background:#fff0f0;border:1px solid #f3a0a0;padding:.6rem .8rem}
.key{font-family:ui-monospace,monospace;word-break:break-all;background:#f6f6f6;padding:.4rem}
nav a{margin-right:1rem}`;

const SCRIPT = `for(const b of document.querySelectorAll('button[data-copy]')){b.addEventListener('click',()=>{const t=document.getElementById(b.dataset.copy).textContent;const done=()=>{b.textContent='Copied'};if(navigator.clipboard){navigator.clipboard.writeText(t).then(done,()=>{})}else{const r=document.createRange();r.selectNodeContents(document.getElementById(b.dataset.copy));const s=getSelection();s.removeAllRanges();s.addRange(r);document.execCommand('copy');done()}})}`;

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** Security headers of every page. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': [
    "default-src 'none'",
    `style-src ${hashOf(STYLE)}`,
    `script-src ${hashOf(SCRIPT)}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
});

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Racing Analytics</title><style>${STYLE}</style></head>
<body><main>
${body}
</main><script>${SCRIPT}</script></body></html>
`;
}

function message(kind: 'notice' | 'error', text: string | undefined): string {
  return text ? `<p class="${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${escapeHtml(text)}</p>` : '';
}

const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;

export interface FormPage {
  csrf: string;
  email?: string;
  error?: string;
  notice?: string;
}

export function signUpPage(p: FormPage): string {
  return layout(
    'Create an account',
    `<h1>Create an account</h1>
${message('error', p.error)}${message('notice', p.notice)}
<form method="post" action="/sign-up">${csrfField(p.csrf)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" maxlength="254" required value="${escapeHtml(p.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="10" maxlength="200" required>
<p>At least 10 characters.</p>
<button type="submit">Create account</button>
</form>
<p>Already have an account? <a href="/sign-in">Sign in</a></p>`,
  );
}

export function signInPage(p: FormPage): string {
  return layout(
    'Sign in',
    `<h1>Sign in</h1>
${message('error', p.error)}${message('notice', p.notice)}
<form method="post" action="/sign-in">${csrfField(p.csrf)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" maxlength="254" required value="${escapeHtml(p.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" maxlength="200" required>
<button type="submit">Sign in</button>
</form>
<p>No account yet? <a href="/sign-up">Create an account</a></p>`,
  );
}

export interface AccountPage {
  csrf: string;
  account: Account;
  keys: readonly OwnedKey[];
  /** A key just created: shown this once. */
  newKey?: { id: string; key: string; name: string };
  notice?: string;
  error?: string;
}

const when = (iso: string | null) =>
  iso === null
    ? 'never'
    : `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.slice(0, 16).replace('T', ' '))} UTC</time>`;

function keysTable(keys: readonly OwnedKey[], csrf: string): string {
  if (keys.length === 0) return '<p>No keys yet.</p>';
  const rows = keys.map(
    (
      k,
    ) => `<tr data-key-id="${escapeHtml(k.id)}"><td>${escapeHtml(k.name)}</td><td>${when(k.createdAt)}</td><td>${when(k.lastUsedAt)}</td>
<td>${k.revokedAt === null ? 'active' : `revoked ${when(k.revokedAt)}`}</td>
<td>${
      k.revokedAt === null
        ? `<form method="post" action="/account/keys/${encodeURIComponent(k.id)}/revoke">${csrfField(csrf)}<button type="submit" aria-label="Revoke ${escapeHtml(k.name)}">Revoke</button></form>`
        : ''
    }</td></tr>`,
  );
  return `<table><thead><tr><th>Name</th><th>Created</th><th>Last used</th><th>Status</th><th></th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

export function accountPage(p: AccountPage): string {
  const granted = p.account.accessGrantedAt !== null;
  const access = granted
    ? `<p id="access">API access granted on ${when(p.account.accessGrantedAt)}. Send a key in the <code>X-Api-Key</code> header, or call the API from this browser while signed in.</p>`
    : `<p id="access" class="notice">Your account does not have API access yet. Access is issued when early access opens: an operator grants it, and then you can create keys here.</p>`;
  const created = p.newKey
    ? `<div class="notice" id="new-key-panel"><p>Your new key <strong>${escapeHtml(p.newKey.name)}</strong>. It is shown only now: copy it and keep it safe.</p>
<p class="key" id="new-key">${escapeHtml(p.newKey.key)}</p><button type="button" data-copy="new-key">Copy</button></div>`
    : '';
  const createForm = granted
    ? `<form method="post" action="/account/keys">${csrfField(p.csrf)}
<label for="key-name">Key name</label>
<input id="key-name" name="name" maxlength="200" placeholder="e.g. research notebook">
<button type="submit">Create key</button></form>`
    : '';
  return layout(
    'Your account',
    `<h1>Your account</h1>
<p>Signed in as <strong id="account-email">${escapeHtml(p.account.email)}</strong></p>
${message('error', p.error)}${message('notice', p.notice)}
${access}
<h2>API keys</h2>
${created}
${createForm}
${keysTable(p.keys, p.csrf)}
<form method="post" action="/sign-out">${csrfField(p.csrf)}<button type="submit">Sign out</button></form>`,
  );
}

export function errorPage(status: number, title: string, text: string, link = '/sign-in'): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(text)}</p>
<p><a href="${escapeHtml(link)}">Continue</a> (HTTP ${status})</p>`,
  );
}
