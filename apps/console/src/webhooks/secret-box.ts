/**
 * Webhook signing secrets at rest (spec §6.3 point 8): AES-256-GCM with the key in `webhooks.encryptionKeyFile`
 * (base64 of 32 random bytes; the chart mounts `console.webhooks.existingSecret` there). A stored secret is
 * `v1:<base64 of 12-byte nonce | 16-byte tag | ciphertext>`; the endpoint id is the additional data, so a
 * ciphertext copied onto another endpoint does not decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";

/** Encrypts and decrypts signing secrets with one key. */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** From the key's base64 text; throws naming what is wrong. */
  static fromBase64(text: string): SecretBox {
    const key = Buffer.from(text.trim(), "base64");
    if (key.length !== 32 || key.toString("base64") !== text.trim().replace(/\s+/g, ""))
      throw new Error("webhooks.encryptionKeyFile: must hold base64 of 32 bytes");
    return new SecretBox(key);
  }

  /** From `webhooks.encryptionKeyFile`; undefined when the key is not configured ("" path). Throws when unreadable. */
  static fromFile(path: string): SecretBox | undefined {
    if (path === "") return undefined;
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (e) {
      throw new Error(`webhooks.encryptionKeyFile: cannot read ${path}: ${(e as Error).message}`);
    }
    return SecretBox.fromBase64(text);
  }

  seal(secret: string, endpointId: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv("aes-256-gcm", this.key, iv);
    c.setAAD(Buffer.from(endpointId));
    const ct = Buffer.concat([c.update(secret, "utf8"), c.final()]);
    return `v1:${Buffer.concat([iv, c.getAuthTag(), ct]).toString("base64")}`;
  }

  /** The secret; throws when the text was not sealed with this key for this endpoint. */
  open(sealed: string, endpointId: string): string {
    if (!sealed.startsWith("v1:")) throw new Error("unknown secret format");
    const raw = Buffer.from(sealed.slice(3), "base64");
    const d = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
    d.setAAD(Buffer.from(endpointId));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString("utf8");
  }
}
