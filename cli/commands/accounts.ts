/**
 * `racing accounts grant|revoke|list`: early access, through the running service's admin listener (so
 * the change is live at once and, in Kafka mode, replicated), or straight on the store when none runs.
 */
import { RacingError } from '../../domain/errors.js';
import type { Account } from '../../state/credentials/account-store.js';
import { call, type Target } from './admin-client.js';

export async function listAccounts(t: Target): Promise<Account[]> {
  if ('service' in t)
    return ((await (await call(t.service, 'GET', '/accounts')).json()) as { accounts: Account[] }).accounts;
  return t.rt.accounts.list();
}

/** Grants (or withdraws) API access; a RacingError not_found when no account has that email. */
export async function setAccess(t: Target, email: string, granted: boolean): Promise<Account> {
  if ('service' in t) {
    return (await (
      await call(t.service, 'POST', `/accounts/${granted ? 'grant' : 'revoke'}`, { email })
    ).json()) as Account;
  }
  const account = await t.rt.accounts.setAccess(email, granted);
  if (!account) throw new RacingError('not_found', `no account with email ${email}`);
  return account;
}

/** One line per account: email, access, created. */
export function formatAccounts(accounts: readonly Account[]): string {
  return accounts
    .map(
      (a) =>
        `${a.email}\t${a.accessGrantedAt ? `access granted ${a.accessGrantedAt}` : 'no access'}\tcreated ${a.createdAt}`,
    )
    .join('\n');
}
