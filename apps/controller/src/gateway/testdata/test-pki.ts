import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A certificate and its key, as files. */
export interface CertFiles {
  certFile: string;
  keyFile: string;
}

/**
 * Test helper: a throwaway PKI made with the `openssl` binary in a temp dir: a CA, a server certificate for
 * 127.0.0.1 / localhost, and client certificates on demand (CN = the given name). remove() deletes the dir.
 */
export class TestPki {
  readonly dir: string;
  readonly ca: CertFiles;
  readonly server: CertFiles;
  #serial = 1;

  constructor(dir = mkdtempSync(join(tmpdir(), "svc-pki-"))) {
    this.dir = dir;
    this.ca = this.#selfSigned("ca", "svc-test-ca");
    this.server = this.issue("server", "localhost", {
      san: "IP:127.0.0.1,DNS:localhost",
      usage: "serverAuth",
    });
  }

  /** A client certificate signed by this CA; `dnsNames` become DNS subjectAltNames. */
  client(name: string, commonName: string, dnsNames: string[] = []): CertFiles {
    const san = dnsNames.length > 0 ? dnsNames.map((d) => `DNS:${d}`).join(",") : undefined;
    return this.issue(name, commonName, { san, usage: "clientAuth" });
  }

  /** Another, unrelated CA (its certificates are not trusted by this PKI's CA). */
  otherCa(name: string): TestPki {
    return new TestPki(mkdtempSync(join(this.dir, `${name}-`)));
  }

  /** Writes `content` to a file in the PKI dir and returns its path. */
  file(name: string, content: string): string {
    const p = join(this.dir, name);
    writeFileSync(p, content);
    return p;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  issue(name: string, commonName: string, opts: { san?: string; usage: string }): CertFiles {
    const keyFile = join(this.dir, `${name}.key`);
    const csr = join(this.dir, `${name}.csr`);
    const certFile = join(this.dir, `${name}.crt`);
    const ext = join(this.dir, `${name}.ext`);
    writeFileSync(
      ext,
      `${opts.san ? `subjectAltName=${opts.san}\n` : ""}extendedKeyUsage=${opts.usage}\nbasicConstraints=CA:FALSE\n`,
    );
    openssl(["req", "-new", ...ecKey(keyFile), "-out", csr, "-subj", `/CN=${commonName}`]);
    openssl([
      "x509",
      "-req",
      "-in",
      csr,
      "-CA",
      this.ca.certFile,
      "-CAkey",
      this.ca.keyFile,
      "-set_serial",
      String(++this.#serial),
      "-days",
      "2",
      "-out",
      certFile,
      "-extfile",
      ext,
    ]);
    return { certFile, keyFile };
  }

  #selfSigned(name: string, commonName: string): CertFiles {
    const keyFile = join(this.dir, `${name}.key`);
    const certFile = join(this.dir, `${name}.crt`);
    openssl([
      "req",
      "-x509",
      ...ecKey(keyFile),
      "-out",
      certFile,
      "-days",
      "2",
      "-subj",
      `/CN=${commonName}`,
    ]);
    return { certFile, keyFile };
  }
}

function ecKey(keyFile: string): string[] {
  return ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", keyFile];
}

function openssl(args: string[]): void {
  execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
}
