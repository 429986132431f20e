import { connect } from "node:net";

/**
 * Send `GET <target> HTTP/1.1` over a plain socket, the target written byte for byte (no client
 * normalising `..`, re-encoding `%` or refusing a NUL), and read the answer until the server closes.
 * Returns the status (0 when the server closed without a status line) and the body text.
 *
 * @example const r = await rawGet(port, "/runs/0/../secret.txt"); r.status // 404
 */
export function rawGet(port: number, target: string | Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (d) => chunks.push(d));
    socket.on("error", reject);
    socket.on("close", () => {
      const raw = Buffer.concat(chunks).toString("latin1");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1] ?? 0);
      const at = raw.indexOf("\r\n\r\n");
      resolve({ status, text: at < 0 ? "" : raw.slice(at + 4) });
    });
    socket.write(
      Buffer.concat([
        Buffer.from("GET "),
        Buffer.isBuffer(target) ? target : Buffer.from(target, "latin1"),
        Buffer.from(" HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n"),
      ]),
    );
  });
}
