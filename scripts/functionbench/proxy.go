package main

import (
	"bytes"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// clientPreface opens every HTTP/2 connection, before its first frame.
const clientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// frameHeaders is HTTP/2's HEADERS frame type: one per gRPC call.
const frameHeaders = 0x1

// h2Counter counts the HEADERS frames of an HTTP/2 client stream as calls.
type h2Counter struct {
	calls   *atomic.Int64
	preface int    // bytes of the preface read so far
	header  []byte // the next frame's 9-byte header, as far as read
	skip    int    // payload bytes of the current frame still to come
	off     bool   // not HTTP/2: stop reading
}

func (c *h2Counter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && !c.off {
		switch {
		case c.preface < len(clientPreface):
			k := min(len(clientPreface)-c.preface, len(p))
			c.off = !bytes.Equal(p[:k], []byte(clientPreface[c.preface:c.preface+k]))
			c.preface += k
			p = p[k:]
		case c.skip > 0:
			k := min(c.skip, len(p))
			c.skip -= k
			p = p[k:]
		default:
			k := min(9-len(c.header), len(p))
			c.header = append(c.header, p[:k]...)
			p = p[k:]
			if len(c.header) == 9 {
				c.skip = int(c.header[0])<<16 | int(c.header[1])<<8 | int(c.header[2])
				if c.header[3] == frameHeaders {
					c.calls.Add(1)
				}
				c.header = c.header[:0]
			}
		}
	}
	return n, nil
}

// countingProxy forwards loopback connections to upstream, counting connections and calls.
type countingProxy struct {
	ln          net.Listener
	upstream    string
	connections atomic.Int64
	calls       atomic.Int64

	mu    sync.Mutex
	conns []net.Conn
}

func newCountingProxy(upstream string) (*countingProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &countingProxy{ln: ln, upstream: upstream}
	go p.serve()
	return p, nil
}

// Addr is the host:port to give as FIRESTORE_EMULATOR_HOST.
func (p *countingProxy) Addr() string { return p.ln.Addr().String() }

// Counts returns the connections and calls since the last Reset.
func (p *countingProxy) Counts() (connections, calls int64) {
	return p.connections.Load(), p.calls.Load()
}

// Reset closes every forwarded connection and zeroes the counts.
func (p *countingProxy) Reset() {
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.connections.Store(0)
	p.calls.Store(0)
}

func (p *countingProxy) Close() error {
	p.Reset()
	return p.ln.Close()
}

func (p *countingProxy) serve() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.connections.Add(1)
		server, err := net.Dial("tcp", p.upstream)
		if err != nil {
			client.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, client, server)
		p.mu.Unlock()
		go func() {
			io.Copy(server, io.TeeReader(client, &h2Counter{calls: &p.calls}))
			server.Close()
		}()
		go func() {
			io.Copy(client, server)
			client.Close()
		}()
	}
}
