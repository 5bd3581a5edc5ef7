// An independent Standard Webhooks verifier for the Go webhook sender's
// tests: reads {"secret", "headers", "body"} as JSON on standard input,
// verifies them with the standardwebhooks package, and prints the verified
// payload's JSON. Exits 1 (with the library's reason) when they do not verify.
import { Webhook } from "standardwebhooks";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { secret, headers, body } = JSON.parse(input);
try {
  const payload = new Webhook(secret).verify(body, headers);
  process.stdout.write(JSON.stringify(payload));
} catch (err) {
  process.stderr.write(`not verified: ${err.message}\n`);
  process.exit(1);
}
