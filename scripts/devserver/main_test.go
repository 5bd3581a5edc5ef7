package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

func TestDevTimeoutsAreAllSet(t *testing.T) {
	s := newServer(http.NotFoundHandler())
	if s.ReadHeaderTimeout <= 0 || s.ReadTimeout <= 0 || s.WriteTimeout <= 0 || s.IdleTimeout <= 0 {
		t.Fatalf("a timeout is unset: header %v, read %v, write %v, idle %v", s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout)
	}
	if s.ReadTimeout > time.Minute || s.ReadHeaderTimeout > s.ReadTimeout {
		t.Fatalf("reading a request may take %v (headers %v): a trickling client holds the connection that long", s.ReadTimeout, s.ReadHeaderTimeout)
	}
	if s.WriteTimeout < 2*time.Minute {
		t.Fatalf("write timeout %v is below twice the longest store timeout: a slow store would cut the connection instead of answering 503", s.WriteTimeout)
	}
}

// serve starts newServer with short timeouts on a loopback port.
func serve(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout = 300*time.Millisecond, 600*time.Millisecond, 2*time.Second, 600*time.Millisecond
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	return ln.Addr().String()
}

// closedByServer reports whether the server closes conn before the client
// gives up after limit, while trickle (if set) keeps sending.
func closedByServer(t *testing.T, conn net.Conn, limit time.Duration, trickle func() error) bool {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(io.Discard, conn) // returns when the server closes the connection
	}()
	deadline := time.After(limit)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return true
		case <-deadline:
			return false
		case <-tick.C:
			if trickle != nil && trickle() != nil {
				<-done
				return true
			}
		}
	}
}

func TestASlowBodyIsCutOff(t *testing.T) {
	conn, err := net.Dial("tcp", serve(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w := bufio.NewWriter(conn)
	w.WriteString("POST /api/introductions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
	w.Flush()
	// One byte every 200 ms would take 200 s to send the body.
	if !closedByServer(t, conn, 20*time.Second, func() error { _, err := conn.Write([]byte("x")); return err }) {
		t.Fatal("a client trickling its body one byte at a time was never cut off")
	}
}

func TestAnIdleConnectionIsClosed(t *testing.T) {
	conn, err := net.Dial("tcp", serve(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if !closedByServer(t, conn, 20*time.Second, nil) {
		t.Fatal("a connection that sent nothing was never closed")
	}
}

func TestAKeptAliveConnectionIsClosedWhenIdle(t *testing.T) {
	conn, err := net.Dial("tcp", serve(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write([]byte("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("first request: %v %v", resp, err)
	}
	if !closedByServer(t, conn, 20*time.Second, nil) {
		t.Fatal("a kept-alive connection that went quiet was never closed")
	}
}
