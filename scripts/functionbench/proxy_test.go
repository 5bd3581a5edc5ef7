package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// recordingConn keeps every byte written to the connection.
type recordingConn struct {
	net.Conn
	mu      sync.Mutex
	written bytes.Buffer
}

func (c *recordingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.written.Write(p)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// TestProxyCountsConnectionsAndCalls makes three unary calls and one
// stream with a real gRPC client, through the proxy, to a real gRPC server:
// one connection, four calls. The service name in every request is made of
// bytes that read as HEADERS frame headers unless skipped as payload. The
// client's bytes, recorded, are counted again fed one byte at a time (frame
// headers split across writes).
func TestProxyCountsConnectionsAndCalls(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	service := strings.Repeat("\x01", 360) // 0x1: the type of a HEADERS frame
	healthSrv := health.NewServer()
	healthSrv.SetServingStatus(service, healthpb.HealthCheckResponse_SERVING)
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, healthSrv)
	go srv.Serve(ln)
	defer srv.Stop()
	proxy, err := newCountingProxy(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()

	var rec *recordingConn
	conn, err := grpc.NewClient(proxy.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
			if err != nil {
				return nil, err
			}
			rec = &recordingConn{Conn: c}
			return rec, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	client := healthpb.NewHealthClient(conn)
	ctx := context.Background()
	for range 3 {
		if _, err := client.Check(ctx, &healthpb.HealthCheckRequest{Service: service}); err != nil {
			t.Fatal(err)
		}
	}
	watch, err := client.Watch(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Recv(); err != nil {
		t.Fatal(err)
	}
	conn.Close()

	if conns, calls := proxy.Counts(); conns != 1 || calls != 4 {
		t.Errorf("proxy counted %d connections, %d calls; want 1, 4", conns, calls)
	}
	rec.mu.Lock()
	stream := rec.written.Bytes()
	rec.mu.Unlock()
	var calls atomic.Int64
	c := &h2Counter{calls: &calls}
	for i := range stream {
		c.Write(stream[i : i+1])
	}
	if calls.Load() != 4 {
		t.Errorf("the recorded %d bytes, fed a byte at a time: %d calls, want 4", len(stream), calls.Load())
	}
}

// TestCounterIgnoresAnotherProtocol: an HTTP/1.1 request is no gRPC call.
func TestCounterIgnoresAnotherProtocol(t *testing.T) {
	var calls atomic.Int64
	c := &h2Counter{calls: &calls}
	c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n\x00\x00\x00\x01\x05\x00\x00\x00\x01"))
	if calls.Load() != 0 {
		t.Errorf("%d calls in an HTTP/1.1 request", calls.Load())
	}
}
