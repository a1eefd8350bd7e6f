/**
 * Operator routes for early access, under /admin/v1 on the loopback admin listener (X-Admin-Token):
 *
 *   GET  /admin/v1/accounts                 -> 200 {accounts: [{id, email, createdAt, accessGrantedAt}]}
 *   POST /admin/v1/accounts/grant  {email}  -> 200 the account (access granted; idempotent), 404 unknown
 *   POST /admin/v1/accounts/revoke {email}  -> 200 the account (access withdrawn; idempotent), 404 unknown
 *
 * Access changes take effect on the next request of the account's sessions and keys.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { RacingError } from '../domain/errors.js';
import type { AccountStore } from '../state/credentials/account-store.js';
import { adminTokenHook } from './auth.js';

const InstantString = Type.String({ format: 'date-time' });

export const AccountSchema = Type.Object(
  {
    id: Type.String({ description: 'acc_ followed by 20 hex digits' }),
    email: Type.String(),
    createdAt: InstantString,
    accessGrantedAt: Type.Union([Type.Null(), InstantString], { description: 'null: no API access' }),
  },
  { additionalProperties: false, title: 'Account' },
);

const EmailBody = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 254, description: 'the account email (any case)' }) },
  { additionalProperties: false },
);

export function adminAccountRoutes(deps: { token: string; accounts: AccountStore }) {
  const { accounts } = deps;
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('onRequest', adminTokenHook(deps.token));

    app.get(
      '/accounts',
      {
        config: { access: 'admin' },
        schema: {
          summary: 'List accounts and their API access (never passwords)',
          tags: ['admin'],
          response: { 200: Type.Object({ accounts: Type.Array(AccountSchema) }, { additionalProperties: false }) },
        },
      },
      async () => ({ accounts: await accounts.list() }),
    );

    for (const [action, granted] of [
      ['grant', true],
      ['revoke', false],
    ] as const) {
      app.post<{ Body: { email: string } }>(
        `/accounts/${action}`,
        {
          config: { access: 'admin' },
          schema: {
            summary: granted ? 'Grant an account API access' : "Withdraw an account's API access",
            tags: ['admin'],
            body: EmailBody,
            response: { 200: AccountSchema },
          },
        },
        async (request) => {
          const account = await accounts.setAccess(request.body.email, granted);
          if (!account) throw new RacingError('not_found', `no account with email ${request.body.email}`);
          request.log.info({ accountId: account.id, granted }, 'api access changed');
          return account;
        },
      );
    }
  };
}
