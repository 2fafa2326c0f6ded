import { BackstageCredentials } from '@backstage/backend-plugin-api';

/** Who acted, for the audit trail: a user entity ref, or `service:<subject>` for another backend acting as itself. */
export function actorOf(credentials: BackstageCredentials): string {
  const principal = credentials.principal as {
    type: string;
    userEntityRef?: string;
    subject?: string;
  };
  return principal.type === 'user'
    ? principal.userEntityRef!
    : `service:${principal.subject ?? 'unknown'}`;
}
