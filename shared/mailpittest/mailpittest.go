// Package mailpittest connects tests to a real mailpit (a local SMTP server
// with an API to read what it received), never a fake SMTP server.
//
// Shared returns the one make test starts (scripts/mailpit.sh, addresses in
// MAILPIT_SMTP_ADDR and MAILPIT_API_URL); Start runs a private one for a
// test that stops it, restarts it or makes it fail on purpose. Without
// mailpit a test is skipped, except under CI (CI set), where it fails.
package mailpittest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ownersite/introductions/shared/testsupport"
)

// Server is one running mailpit.
type Server struct {
	// SMTPHost and SMTPPort are its SMTP listener (plain, any login
	// accepted); API is the base URL of its web inbox and API.
	SMTPHost string
	SMTPPort int
	API      string

	args   []string
	cmd    *exec.Cmd
	exited chan struct{}
}

func unavailable(t testing.TB, why string) {
	t.Helper()
	testsupport.SkipOrFail(t, "%s", why)
}

// Shared is the mailpit of this test run, from MAILPIT_SMTP_ADDR
// (host:port) and MAILPIT_API_URL. Tests share it: find your messages by
// something unique (Message-ID, subject).
func Shared(t testing.TB) *Server {
	t.Helper()
	addr, api := os.Getenv("MAILPIT_SMTP_ADDR"), os.Getenv("MAILPIT_API_URL")
	if addr == "" || api == "" {
		unavailable(t, "MAILPIT_SMTP_ADDR or MAILPIT_API_URL is unset: start mailpit with eval \"$(scripts/mailpit.sh start)\" (make test does)")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("MAILPIT_SMTP_ADDR=%q: %v", addr, err)
	}
	p, _ := strconv.Atoi(port)
	return &Server{SMTPHost: host, SMTPPort: p, API: api}
}

// Binary finds mailpit: MAILPIT_BIN, then PATH, then $GOPATH/bin.
func Binary() (string, bool) {
	if b := os.Getenv("MAILPIT_BIN"); b != "" {
		return b, true
	}
	if b, err := exec.LookPath("mailpit"); err == nil {
		return b, true
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		home, _ := os.UserHomeDir()
		gopath = filepath.Join(home, "go")
	}
	b := filepath.Join(gopath, "bin", "mailpit")
	if _, err := os.Stat(b); err == nil {
		return b, true
	}
	return "", false
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Start runs a private mailpit on free loopback ports, with extra
// command-line arguments (such as "--enable-chaos", or a TLS certificate),
// stopped when the test ends. It accepts any login, also over plain SMTP
// unless extra requires TLS.
func Start(t testing.TB, extra ...string) *Server {
	t.Helper()
	bin, ok := Binary()
	if !ok {
		unavailable(t, "mailpit is not installed: go install github.com/axllent/mailpit@v1.33.1")
	}
	smtpPort, httpPort := freePort(t), freePort(t)
	s := &Server{SMTPHost: "127.0.0.1", SMTPPort: smtpPort, API: fmt.Sprintf("http://127.0.0.1:%d", httpPort)}
	s.args = []string{
		"--smtp", fmt.Sprintf("127.0.0.1:%d", smtpPort), "--listen", fmt.Sprintf("127.0.0.1:%d", httpPort),
		"--smtp-auth-accept-any", "--disable-version-check", "--quiet",
		"--database", filepath.Join(t.TempDir(), "mailpit.db"),
	}
	if !slices.Contains(extra, "--smtp-require-tls") && !slices.Contains(extra, "--smtp-require-starttls") {
		s.args = append(s.args, "--smtp-auth-allow-insecure")
	}
	s.args = append(s.args, extra...)
	s.args = append([]string{bin}, s.args...)
	s.Restart(t)
	t.Cleanup(func() { s.Stop(t) })
	return s
}

// Stop ends a private mailpit; its SMTP port then refuses connections.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.exited
	s.cmd = nil
}

// Restart starts a stopped private mailpit again on the same ports (its
// mail kept), waiting until it answers.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if s.args == nil {
		t.Fatal("mailpittest: only a private mailpit (Start) can be restarted")
	}
	var out bytes.Buffer
	s.cmd = exec.Command(s.args[0], s.args[1:]...)
	s.cmd.Stdout, s.cmd.Stderr = &out, &out
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("starting mailpit: %v", err)
	}
	cmd, exited := s.cmd, make(chan struct{})
	s.exited = exited
	go func() { cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			s.cmd = nil
			t.Fatalf("mailpit exited at start: %s", out.String())
		default:
		}
		if resp, err := http.Get(s.API + "/api/v1/info"); err == nil {
			resp.Body.Close()
			if c, err := net.Dial("tcp", net.JoinHostPort(s.SMTPHost, strconv.Itoa(s.SMTPPort))); err == nil {
				c.Close()
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("mailpit did not answer within 15 s: %s", out.String())
}

// Chaos sets mailpit's SMTP failure triggers (needs "--enable-chaos"):
// each of sender, recipient and authentication answers code with the
// given probability in percent; a zero code leaves that stage alone.
func (s *Server) Chaos(t testing.TB, stage string, code, probability int) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{stage: map[string]int{"ErrorCode": code, "Probability": probability}})
	req, _ := http.NewRequest(http.MethodPut, s.API+"/api/v1/chaos", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("mailpit chaos: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("mailpit chaos: %s", resp.Status)
	}
}

// Address is a mailbox as mailpit reports it.
type Address struct {
	Name    string
	Address string
}

// Message is a received message as mailpit's API reports it.
type Message struct {
	ID        string
	MessageID string
	From      Address
	To        []Address
	Cc        []Address
	Bcc       []Address
	ReplyTo   []Address
	Subject   string
	Text      string
	HTML      string
}

func (s *Server) get(t testing.TB, path string, v any) {
	t.Helper()
	resp, err := http.Get(s.API + path)
	if err != nil {
		t.Fatalf("mailpit API %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("mailpit API %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("mailpit API %s: %v", path, err)
	}
}

// Search returns the messages matching a mailpit search query (such as
// `message-id:"<id>"` or `subject:"…"`), newest first, as full messages.
func (s *Server) Search(t testing.TB, query string) []Message {
	t.Helper()
	var found struct{ Messages []struct{ ID string } }
	s.get(t, "/api/v1/search?query="+url.QueryEscape(query), &found)
	out := make([]Message, 0, len(found.Messages))
	for _, m := range found.Messages {
		out = append(out, s.Message(t, m.ID))
	}
	return out
}

// Message returns one message by mailpit's id.
func (s *Server) Message(t testing.TB, id string) Message {
	t.Helper()
	var m Message
	s.get(t, "/api/v1/message/"+url.PathEscape(id), &m)
	return m
}

// Headers returns one message's headers, as received.
func (s *Server) Headers(t testing.TB, id string) map[string][]string {
	t.Helper()
	var h map[string][]string
	s.get(t, "/api/v1/message/"+url.PathEscape(id)+"/headers", &h)
	return h
}
