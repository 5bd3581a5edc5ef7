package testsupport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// MailServer is a running MailDev, whose API reads back what it received.
type MailServer struct {
	SMTPHost string
	SMTPPort int
	// Web is the base URL of its web inbox and API.
	Web string

	start map[string]any // how a private one starts
}

// SharedMail is the MailDev of MAILDEV_SMTP_ADDR and MAILDEV_WEB_URL,
// shared by tests; without it the test is skipped, or fails under CI.
func SharedMail(t testing.TB) *MailServer {
	t.Helper()
	addr, web := os.Getenv("MAILDEV_SMTP_ADDR"), os.Getenv("MAILDEV_WEB_URL")
	host, port, err := net.SplitHostPort(addr)
	if err != nil || web == "" {
		SkipOrFail(t, "MAILDEV_SMTP_ADDR (%q) or MAILDEV_WEB_URL is unset: export $(scripts/maildev.sh start) (make test does)", addr)
	}
	p, _ := strconv.Atoi(port)
	return &MailServer{SMTPHost: host, SMTPPort: p, Web: web}
}

// mailHost is the node process that runs this binary's private MailDevs.
var mailHost struct {
	sync.Mutex
	in  io.Writer
	out *bufio.Scanner
}

// mailHostDo sends request to mailHost, started on first use.
func mailHostDo(t testing.TB, request map[string]any, answer any) {
	t.Helper()
	mailHost.Lock()
	defer mailHost.Unlock()
	if mailHost.in == nil {
		node, err := exec.LookPath("node")
		root := RepoRoot(t)
		if _, statErr := os.Stat(filepath.Join(root, "scripts/js/node_modules/maildev/package.json")); err != nil || statErr != nil {
			SkipOrFail(t, "node or scripts/js/node_modules/maildev is missing (make test runs npm ci there): %v %v", err, statErr)
		}
		cmd := exec.Command(node, filepath.Join(root, "scripts/js/maildev-private.mjs"))
		cmd.Stderr = os.Stderr
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting MailDev: %v", err)
		}
		mailHost.in, mailHost.out = in, bufio.NewScanner(out)
	}
	line, _ := json.Marshal(request)
	mailHost.in.Write(append(line, '\n'))
	var failed struct{ Error string }
	if !mailHost.out.Scan() || json.Unmarshal(mailHost.out.Bytes(), &failed) != nil || failed.Error != "" {
		t.Fatalf("MailDev: %s %s", request["do"], failed.Error)
	}
	json.Unmarshal(mailHost.out.Bytes(), answer)
}

// StartMail runs a private MailDev on free loopback ports until the test
// ends; args are "--tls", "starttls" or "implicit", "--cert" and "--key".
func StartMail(t testing.TB, args ...string) *MailServer {
	t.Helper()
	s := &MailServer{SMTPHost: "127.0.0.1", start: map[string]any{"do": "start", "dir": t.TempDir(), "args": append([]string{}, args...), "smtp": 0, "web": 0}}
	s.Restart(t)
	t.Cleanup(func() { s.Stop(t) })
	return s
}

// Stop ends a private MailDev; its SMTP port then refuses connections.
func (s *MailServer) Stop(t testing.TB) {
	t.Helper()
	mailHostDo(t, map[string]any{"do": "stop", "dir": s.start["dir"]}, nil)
}

// Restart starts a stopped private MailDev again, on the same ports.
func (s *MailServer) Restart(t testing.TB) {
	t.Helper()
	var ports struct{ SMTP, Web int }
	mailHostDo(t, s.start, &ports)
	s.SMTPPort, s.Web = ports.SMTP, fmt.Sprintf("http://127.0.0.1:%d", ports.Web)
	s.start["smtp"], s.start["web"] = ports.SMTP, ports.Web
}

// Refuse makes a private MailDev answer code at stage (MAIL, RCPT or AUTH)
// from now on; code 0 accepts again.
func (s *MailServer) Refuse(t testing.TB, stage string, code int) {
	t.Helper()
	mailHostDo(t, map[string]any{"do": "refuse", "dir": s.start["dir"], "stage": stage, "code": code}, nil)
}

// Address is a mailbox.
type Address struct{ Name, Address string }

// Message is a message as received, Headers raw; Bcc names the SMTP
// recipients neither To nor Cc names.
type Message struct {
	ID, MessageID        string
	From                 Address
	To, Cc, Bcc, ReplyTo []Address
	Subject, Text, HTML  string
	Headers              map[string][]string
}

type received struct {
	ID, Subject, Text, HTML string
	Headers                 map[string]any
	Envelope                struct{ To []Address }
	CalculatedBcc           []Address
}

func (s *MailServer) get(t testing.TB, path string) io.ReadCloser {
	t.Helper()
	resp, err := http.Get(s.Web + path)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("MailDev GET %s: %v %v", path, err, resp)
	}
	return resp.Body
}

// find returns, in the order they arrived, the messages keep accepts.
func (s *MailServer) find(t testing.TB, keep func(received) bool) []Message {
	t.Helper()
	var all []received
	body := s.get(t, "/api/email")
	defer body.Close()
	if err := json.NewDecoder(body).Decode(&all); err != nil {
		t.Fatalf("MailDev's list of mail: %v", err)
	}
	var out []Message
	for _, r := range all {
		if !keep(r) {
			continue
		}
		src := s.get(t, "/api/email/"+r.ID+"/source")
		raw, err := mail.ReadMessage(src)
		src.Close()
		if err != nil {
			t.Fatalf("message %s as received: %v", r.ID, err)
		}
		addresses := func(key string) (list []Address) {
			parsed, err := raw.Header.AddressList(key)
			if err != nil && err != mail.ErrHeaderNotPresent {
				t.Fatalf("message %s: %s: %v", r.ID, key, err)
			}
			for _, a := range parsed {
				list = append(list, Address{a.Name, a.Address})
			}
			return list
		}
		from := addresses("From")
		if len(from) != 1 {
			t.Fatalf("message %s is from %v", r.ID, from)
		}
		out = append(out, Message{ID: r.ID, MessageID: strings.Trim(raw.Header.Get("Message-Id"), "<>"), From: from[0], To: addresses("To"), Cc: addresses("Cc"),
			Bcc: append(r.CalculatedBcc, addresses("Bcc")...), ReplyTo: addresses("Reply-To"), Subject: r.Subject, Text: r.Text, HTML: r.HTML, Headers: raw.Header})
	}
	return out
}

// WithMessageID returns the messages whose Message-ID is id, unbracketed.
func (s *MailServer) WithMessageID(t testing.TB, id string) []Message {
	t.Helper()
	return s.find(t, func(r received) bool { return r.Headers["message-id"] == "<"+id+">" })
}

// SentTo returns the messages received for address.
func (s *MailServer) SentTo(t testing.TB, address string) []Message {
	t.Helper()
	return s.find(t, func(r received) bool {
		return slices.ContainsFunc(r.Envelope.To, func(a Address) bool { return strings.EqualFold(a.Address, address) })
	})
}
