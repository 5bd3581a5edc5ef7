package wiring_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/storage"

	"github.com/ownersite/introductions/functions/wiring/dbparts"
	"github.com/ownersite/introductions/shared/attachment"
	"github.com/ownersite/introductions/shared/config"
	"github.com/ownersite/introductions/shared/storagetest"
	"github.com/ownersite/introductions/shared/testsupport"
)

// BenchmarkAttachmentUpload measures the upload of a 5 MiB PDF: a PUT of
// it to the wired service (over loopback HTTP; sniffed, hashed and
// written to fake-gcs-server a chunk at a time, then recorded in
// Firestore) against a plain io.Copy of the same bytes into a storage
// Writer on the same fake-gcs-server, with the client's defaults and with
// the adapter's chunk size. It prints the median time and the peak heap
// above the baseline of each, and the upload's ratios to each. Figures
// only, never asserted.
func BenchmarkAttachmentUpload(b *testing.B) {
	// adapterChunk is attachmentbucket's chunk: the second reference copies
	// in chunks of the same size, to tell the chunks' cost from the rest.
	const adapterChunk = 256 << 10
	const rounds = 10
	bucket := storagetest.BucketName(b)
	h := benchHarness(b, map[string]string{"ATTACHMENT_BUCKET": bucket}, dbparts.Overrides{SweepRunner: idleSweep{}})
	file := pdfOfSize(config.DefaultAttachmentMaxBytes)

	client, err := storage.NewClient(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()

	// plainCopy copies the file into a new object, in chunks of chunk bytes
	// (0: the client's default, 16 MiB, so one request for the whole file).
	plainCopy := func(round, chunk int) {
		w := client.Bucket(bucket).Object(fmt.Sprintf("reference/%d-%d", chunk, round)).NewWriter(context.Background())
		w.ContentType = "application/pdf"
		if chunk > 0 {
			w.ChunkSize = chunk
		}
		if _, err := io.Copy(w, bytes.NewReader(file)); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	// Each upload's draft is kept first, untimed: only the PUT is measured.
	timedUpload := func(round int) (time.Duration, uint64) {
		id, token := h.v3Draft(map[string]any{"email": fmt.Sprintf("upload%d@example.com", round)})
		return measure(func() {
			if r := h.attach(id, token, "application/pdf", "cv.pdf", file); r.status != http.StatusOK {
				b.Fatalf("upload: %d %s", r.status, r.body)
			}
		})
	}
	timedUpload(-1) // warm both paths
	plainCopy(-1, 0)
	plainCopy(-1, adapterChunk)

	for i := 0; i < b.N; i++ {
		var upTimes, refTimes, chunkTimes []time.Duration
		var upPeak, refPeak, chunkPeak uint64
		for r := range rounds {
			d, peak := timedUpload(i*rounds + r)
			upTimes, upPeak = append(upTimes, d), max(upPeak, peak)
			d, peak = measure(func() { plainCopy(i*rounds+r, 0) })
			refTimes, refPeak = append(refTimes, d), max(refPeak, peak)
			d, peak = measure(func() { plainCopy(i*rounds+r, adapterChunk) })
			chunkTimes, chunkPeak = append(chunkTimes, d), max(chunkPeak, peak)
		}
		up, ref, chunked := medianDuration(upTimes), medianDuration(refTimes), medianDuration(chunkTimes)
		fmt.Printf("attachment upload, a %d-byte PDF (%s), medians of %d for time, the most of %d for peak heap above baseline:\n", len(file), attachment.HumanSize(int64(len(file))), rounds, rounds)
		row := func(what string, d time.Duration, peak uint64) {
			fmt.Printf("  %-40s %7.1f ms %6.1f MiB", what, ms(d), mib(peak))
			if what != "PUT through the service" {
				fmt.Printf("   upload/this: time %.2fx, peak heap %.2fx", float64(up)/float64(d), float64(upPeak)/float64(max(peak, 1)))
			}
			fmt.Println()
		}
		row("PUT through the service", up, upPeak)
		row("io.Copy, the client's defaults (16 MiB)", ref, refPeak)
		row(fmt.Sprintf("io.Copy, the adapter's %d KiB chunks", adapterChunk>>10), chunked, chunkPeak)
		b.ReportMetric(ms(up), "ms-upload(median)")
		b.ReportMetric(ms(ref), "ms-io.Copy(median)")
		b.ReportMetric(mib(upPeak), "MiB-upload-peak-heap")
		b.ReportMetric(mib(refPeak), "MiB-io.Copy-peak-heap")
	}
}

// pdfOfSize is a sample PDF of exactly n bytes.
func pdfOfSize(n int) []byte {
	pad := n - len(testsupport.SamplePDF(0))
	for range 3 {
		f := testsupport.SamplePDF(pad)
		if len(f) == n {
			return f
		}
		pad -= len(f) - n
	}
	return testsupport.SamplePDF(pad)
}

// measure runs f once and returns how long it took and the most the heap
// held above what it held before f (sampled every 100 µs from the
// runtime's own figure of bytes in heap objects, after a collection).
func measure(f func()) (time.Duration, uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	runtime.GC()
	base := heap()
	var peak uint64
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			peak = max(peak, heap())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	start := time.Now()
	f()
	d := time.Since(start)
	close(done)
	wg.Wait()
	peak = max(peak, heap())
	if peak < base {
		return d, 0
	}
	return d, peak - base
}

func medianDuration(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// BenchmarkDecoyAttachment times, through the wired handlers on the
// emulator and fake-gcs-server, the upload of a 20 KB PDF to a real draft
// of form version 3 and to a honeypot's decoy, so `make bench` can print
// their ratio: the decoy makes the same Firestore calls, but its bytes go
// nowhere, where a real draft's go to the bucket.
func BenchmarkDecoyAttachment(b *testing.B) {
	h := benchHarness(b, map[string]string{"ATTACHMENT_BUCKET": storagetest.BucketName(b)}, dbparts.Overrides{SweepRunner: idleSweep{}})
	pdf := testsupport.SamplePDF(20000)
	for _, kind := range realAndDecoy {
		b.Run(kind.name, func(b *testing.B) {
			drafts := h.benchDrafts(b, kind, b.N, map[string]any{"formVersion": "3"})
			b.ResetTimer()
			for _, d := range drafts {
				if r := h.attach(d["id"].(string), d["token"].(string), "application/pdf", "cv.pdf", pdf); r.status != http.StatusOK {
					b.Fatalf("upload: %d %s", r.status, r.body)
				}
			}
		})
	}
}
