import { AppError } from '@nap/contracts';

/** 400 `VALIDATION_FAILED` naming the offending member (`body.link.address`), as the gateway's own validation does. */
export function invalidMember(member: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${member} ${message}`, { details: [{ member, message }] });
}
