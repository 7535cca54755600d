/** Password hashing with argon2id (@node-rs/argon2) and the spec's password rules (§5.5). */
import { hash, verify } from "@node-rs/argon2";
import { UnprocessableError } from "../errors.ts";

/** Minimum password length (spec §5.5, §8.1). */
export const MIN_PASSWORD_LENGTH = 12;

/** Current argon2id parameters; hashes made with others are rewritten at the next successful sign-in. */
export const ARGON2_PARAMS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

// @node-rs/argon2 declares Algorithm as a const enum, which isolated modules cannot import; 2 is Argon2id.
const ARGON2ID = 2;

/** Throws UnprocessableError when `password` is shorter than 12 characters. */
export function checkPasswordRules(password: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw new UnprocessableError(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
}

/** Hashes `password` with argon2id at ARGON2_PARAMS (PHC string). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID, ...ARGON2_PARAMS });
}

/** True when `password` matches `phc`. A malformed or foreign hash never matches. */
export async function verifyPassword(phc: string, password: string): Promise<boolean> {
  try {
    return await verify(phc, password);
  } catch {
    return false;
  }
}

/** True when `phc` is not argon2id at the current parameters (older hashes are upgraded at sign-in). */
export function needsRehash(phc: string): boolean {
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(phc);
  if (!m) return true;
  return (
    Number(m[1]) !== ARGON2_PARAMS.memoryCost ||
    Number(m[2]) !== ARGON2_PARAMS.timeCost ||
    Number(m[3]) !== ARGON2_PARAMS.parallelism
  );
}
