package emulatortest

import (
	"context"
	"sync/atomic"

	"cloud.google.com/go/firestore/apiv1/firestorepb"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// RPCCounter counts a Firestore client's gRPC calls and the documents they
// read, and can cut the client off.
type RPCCounter struct {
	n, docs, cutAt atomic.Int64 // cutAt: the count after which calls fail, when cut
	cut            atomic.Bool
}

// FailAfter lets n more calls through, then fails all with UNAVAILABLE.
func (c *RPCCounter) FailAfter(n int64) {
	c.cutAt.Store(c.n.Load() + n)
	c.cut.Store(true)
}

// Heal lets calls through again.
func (c *RPCCounter) Heal() { c.cut.Store(false) }

// count counts one call; an error when it is cut off.
func (c *RPCCounter) count() error {
	if n := c.n.Add(1); c.cut.Load() && n > c.cutAt.Load() {
		return status.Error(codes.Unavailable, "emulatortest: cut off by RPCCounter.FailAfter")
	}
	return nil
}

// Count returns the calls counted since the last Reset.
func (c *RPCCounter) Count() int64 { return c.n.Load() }

// Documents returns the documents read since the last Reset.
func (c *RPCCounter) Documents() int64 { return c.docs.Load() }

// Reset sets both counts to zero.
func (c *RPCCounter) Reset() {
	c.n.Store(0)
	c.docs.Store(0)
}

func (c *RPCCounter) unary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if err := c.count(); err != nil {
		return err
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}

func (c *RPCCounter) stream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	if err := c.count(); err != nil {
		return nil, err
	}
	s, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		return nil, err
	}
	return &docCountingStream{ClientStream: s, docs: &c.docs}, nil
}

// docCountingStream counts the documents a query or batch get receives.
type docCountingStream struct {
	grpc.ClientStream
	docs *atomic.Int64
}

func (s *docCountingStream) RecvMsg(m any) error {
	if err := s.ClientStream.RecvMsg(m); err != nil {
		return err
	}
	switch r := m.(type) {
	case *firestorepb.RunQueryResponse:
		if r.GetDocument() != nil {
			s.docs.Add(1)
		}
	case *firestorepb.BatchGetDocumentsResponse:
		if r.GetFound() != nil {
			s.docs.Add(1)
		}
	}
	return nil
}

// ClientOptions makes a client on the emulator at emulatorHost count its calls here: the
// client ignores dial options there, so it hands over a connection dialled here.
func (c *RPCCounter) ClientOptions(emulatorHost string) []option.ClientOption {
	conn, err := grpc.NewClient(emulatorHost, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(emulatorOwner{}), grpc.WithChainUnaryInterceptor(c.unary), grpc.WithChainStreamInterceptor(c.stream))
	if err != nil {
		panic("emulatortest: dialling the emulator at " + emulatorHost + ": " + err.Error())
	}
	return []option.ClientOption{option.WithGRPCConn(conn)}
}

// emulatorOwner is the emulator's privileged bearer credential, as the client sends it.
type emulatorOwner struct{}

func (emulatorOwner) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer owner"}, nil
}

func (emulatorOwner) RequireTransportSecurity() bool { return false }
