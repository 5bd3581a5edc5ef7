// Package attachmentbucket is attachment.Files over a private Cloud Storage
// bucket (fake-gcs-server locally, through STORAGE_EMULATOR_HOST). Its
// errors are NOT_FOUND for a missing object and UNAVAILABLE for the rest,
// never a vendor error.
package attachmentbucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/intake"
)

var _ attachment.Files = (*Bucket)(nil)

// retryAfter is what an unavailable bucket asks the client to wait.
const retryAfter = 5 * time.Second

// Bucket is one bucket's attachments. It is safe for concurrent use.
type Bucket struct {
	client *storage.Client
	bucket *storage.BucketHandle
}

// Open connects to the bucket named name; it does not create it (infra/
// declares it, scripts/storage-emulator.sh makes the local one).
func Open(ctx context.Context, name string, opts ...option.ClientOption) (*Bucket, error) {
	if name == "" {
		return nil, errors.New("attachmentbucket: no bucket name")
	}
	client, err := storage.NewClient(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("attachmentbucket: %w", err)
	}
	return &Bucket{client: client, bucket: client.Bucket(name)}, nil
}

// Close releases the client.
func (b *Bucket) Close() error { return b.client.Close() }

// abandoned is the error an aborted upload's request ends with.
var abandoned = errors.New("attachmentbucket: upload abandoned")

// uploadChunk is how much of a resumable upload is held at once; the last
// chunk goes only on Commit, so an aborted upload never makes an object.
const uploadChunk = 256 << 10

// Create starts writing object, which must not exist yet.
func (b *Bucket) Create(ctx context.Context, object, contentType string) (attachment.Upload, error) {
	w := b.bucket.Object(object).If(storage.Conditions{DoesNotExist: true}).NewWriter(ctx)
	w.ContentType = contentType
	w.ChunkSize = uploadChunk
	return &writer{w: w, b: b, ctx: ctx, object: object}, nil
}

type writer struct {
	w      *storage.Writer
	b      *Bucket
	ctx    context.Context
	object string
}

// Abort breaks the upload off before its last chunk, waits for it to end,
// and deletes the object should one have been made all the same.
func (w *writer) Abort() {
	w.w.CloseWithError(abandoned)
	w.w.Close()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), 10*time.Second)
	defer cancel()
	w.b.Delete(ctx, w.object)
}

func (w *writer) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	return n, unavailable(err)
}

func (w *writer) Commit() error { return unavailable(w.w.Close()) }

// Open reads object: NOT_FOUND when it does not exist.
func (b *Bucket) Open(ctx context.Context, object string) (io.ReadCloser, error) {
	r, err := b.bucket.Object(object).NewReader(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil, intake.ErrNotFound
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return r, nil
}

// Delete deletes object; one that does not exist is no error.
func (b *Bucket) Delete(ctx context.Context, object string) error {
	if err := b.bucket.Object(object).Delete(ctx); err != nil && !errors.Is(err, storage.ErrObjectNotExist) {
		return unavailable(err)
	}
	return nil
}

// DeleteUnder deletes every object whose name begins with prefix; an
// object another caller deleted first is not counted.
func (b *Bucket) DeleteUnder(ctx context.Context, prefix string) (int, error) {
	if prefix == "" {
		return 0, errors.New("attachmentbucket: DeleteUnder needs a prefix")
	}
	deleted := 0
	err := b.each(ctx, prefix, func(attrs *storage.ObjectAttrs) error {
		switch err := b.bucket.Object(attrs.Name).Delete(ctx); {
		case errors.Is(err, storage.ErrObjectNotExist):
		case err != nil:
			return unavailable(err)
		default:
			deleted++
		}
		return nil
	})
	return deleted, err
}

// Objects calls visit with every object of the bucket.
func (b *Bucket) Objects(ctx context.Context, visit func(name string, created time.Time) error) error {
	return b.each(ctx, "", func(attrs *storage.ObjectAttrs) error { return visit(attrs.Name, attrs.Created) })
}

// each calls visit with every object under prefix, stopping at its first error.
func (b *Bucket) each(ctx context.Context, prefix string, visit func(*storage.ObjectAttrs) error) error {
	it := b.bucket.Objects(ctx, &storage.Query{Prefix: prefix, Projection: storage.ProjectionNoACL})
	for {
		attrs, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return nil
		}
		if err != nil {
			return unavailable(err)
		}
		if err := visit(attrs); err != nil {
			return err
		}
	}
}

// unavailable is nil for nil, an *intake.Error as it is, else UNAVAILABLE.
func unavailable(err error) error {
	var e *intake.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &e):
		return e
	}
	return intake.Unavailable(fmt.Errorf("cloud storage: %w", err), retryAfter)
}
