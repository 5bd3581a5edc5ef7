// Private MailDevs for Go tests (testsupport.StartMail), all in this one
// process so that node loads MailDev once per test binary. Each is the mail
// server of make run, started through MailDev's programmatic API on
// 127.0.0.1, its mail kept in its own directory so that a restart on the
// same ports finds it. What only tests need is set on the smtp-server under
// it: any login accepted (none required); with --tls starttls, STARTTLS
// offered (--cert, --key) and a login only after it; with --tls implicit,
// TLS from the first byte; and refusals of a stage (MAIL, RCPT, AUTH) with a
// code.
//
// It reads one JSON request a line and answers each with one JSON line,
// {"error": …} when it failed:
//   {"do": "start", "dir", "args": […], "smtp", "web"} → {"smtp", "web"} (ports; 0 picks free ones)
//   {"do": "stop", "dir"} → {}
//   {"do": "refuse", "dir", "stage", "code"} → {} (code 0 accepts again)
// where dir, the directory of its mail, names a MailDev.
// It ends when its input closes.
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { MailDev } from 'maildev';

console.info = () => {}; // MailDev's API server announces itself there
const servers = new Map();

async function start({ dir, args, smtp: smtpPort, web }) {
  const { values: o } = parseArgs({
    args, options: { tls: { type: 'string', default: 'none' }, cert: { type: 'string' }, key: { type: 'string' } },
  });
  const maildev = new MailDev({
    smtp: smtpPort, ip: '127.0.0.1', web, webIp: '127.0.0.1', mailDirectory: dir, silent: true,
    incomingSecure: o.tls === 'implicit', incomingCert: o.cert, incomingKey: o.key,
  });
  const { smtp, api } = await maildev.start();
  const refusals = {};
  // MailDev 3.0.0 hides STARTTLS and turns AUTH off; its smtp-server (a field
  // MailDev keeps private) reads these options and handlers per connection.
  const server = smtp.smtp;
  const unless = (stage, callback, accept) =>
    refusals[stage] ? callback(Object.assign(new Error(`refused at ${stage}`), { responseCode: refusals[stage] })) : accept();
  Object.assign(server.options, {
    hideSTARTTLS: o.tls !== 'starttls', disabledCommands: o.tls === 'none' ? ['STARTTLS'] : [],
    authOptional: true, allowInsecureAuth: o.tls !== 'starttls', closeTimeout: 100,
  });
  server.onAuth = (auth, _session, callback) => unless('AUTH', callback, () => callback(null, { user: auth.username }));
  server.onMailFrom = (_address, _session, callback) => unless('MAIL', callback, () => callback());
  server.onRcptTo = (_address, _session, callback) => unless('RCPT', callback, () => callback());
  servers.set(dir, { maildev, refusals });
  return { smtp: smtp.getPort(), web: api.getAddress().port };
}

const handlers = {
  start,
  stop: async ({ dir }) => {
    await servers.get(dir)?.maildev.stop();
    servers.delete(dir);
    return {};
  },
  refuse: async ({ dir, stage, code }) => {
    servers.get(dir).refusals[stage] = code;
    return {};
  },
};

for await (const line of createInterface({ input: process.stdin })) {
  let answer;
  try {
    const request = JSON.parse(line);
    answer = await handlers[request.do](request);
  } catch (err) {
    answer = { error: String(err?.stack ?? err) };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
}
process.exit(0);
