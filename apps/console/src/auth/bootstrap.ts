/** The bootstrap administrator of local mode (spec §5.2): created only while the users table is empty. */
import { readFile } from "node:fs/promises";
import type { Store, UserRecord } from "../store/store.ts";
import { checkPasswordRules, hashPassword } from "./password.ts";

/**
 * Creates `username` with role `admin` and the password in `passwordFile` (one trailing newline ignored) when no
 * user exists. Resolves with the user created, or undefined when users already existed. Throws when the file
 * cannot be read or the password is shorter than 12 characters.
 */
export async function ensureBootstrapAdmin(
  store: Store,
  username: string,
  passwordFile: string,
  now: number,
): Promise<UserRecord | undefined> {
  if ((await store.countUsers()) > 0) return undefined;
  let password: string;
  try {
    password = (await readFile(passwordFile, "utf8")).replace(/\r?\n$/, "");
  } catch (e) {
    throw new Error(
      `auth.local.bootstrapPasswordFile: cannot read ${passwordFile} (${(e as NodeJS.ErrnoException).code})`,
    );
  }
  try {
    checkPasswordRules(password);
  } catch (e) {
    throw new Error(`auth.local.bootstrapPasswordFile: ${(e as Error).message}`);
  }
  return store.createUserIfNoneExist(
    { username, passwordHash: await hashPassword(password), role: "admin" },
    now,
  );
}
